import Foundation
import JSON
import Testing

private func parse(_ text: String) throws(JSONError) -> JSONValue { try JSONValue(parsing: text) }

/// The message of the error a text fails with, or nil when it parses.
private func failure(_ text: String) -> String? {
    do {
        _ = try JSONValue(parsing: text)
        return nil
    } catch { return error.message }
}

@Suite("JSONValue: strict parsing")
struct JSONParsingTests {
    @Test("parses the JSON types")
    func types() throws {
        let v = try parse(
            #" { "s": "x", "n": -12.5, "t": true, "f": false, "z": null, "a": [1, [], {}], "o": {"k": "v"} } "#)
        #expect(v["s"] == "x")
        #expect(v["n"] == .number(-12.5))
        #expect(v["t"] == true)
        #expect(v["f"] == false)
        #expect(v["z"] == .null)
        #expect(v["a"] == [1, [], [:]])
        #expect(v["o"]?["k"]?.stringValue == "v")
        #expect(v["missing"] == nil)
    }

    @Test(
        "a document may be any value, surrounded by white space",
        arguments: ["1", " \"x\" ", "\n[]\n", "\t{}\r\n", "null"])
    func anyValue(_ text: String) throws {
        _ = try parse(text)
    }

    @Test("duplicate keys are an error, not a silent overwrite")
    func duplicateKeys() {
        #expect(failure(#"{"a": 1, "a": 2}"#) == "invalid JSON at line 1, column 16: duplicate key 'a'")
        #expect(
            failure(#"{"users": [{"id": "mei", "id": "lin"}]}"#)
                == "invalid JSON at line 1, column 37: duplicate key 'id'")
        #expect(failure(#"{"a": {"b": 1}, "b": 2}"#) == nil)
    }

    @Test("errors give the line")
    func errorLine() {
        #expect(failure("{\n  \"a\": 1,\n  \"a\": 2\n}") == "invalid JSON at line 3, column 9: duplicate key 'a'")
    }

    @Test(
        "text after the value is an error", arguments: [#"{"a": 1} x"#, "[1]]", "1 2", "{}{}", "null,", "\"a\"\"b\""])
    func trailingGarbage(_ text: String) {
        #expect(failure(text) != nil)
    }

    @Test(
        "broken structure is an error",
        arguments: [
            "", "   ", "[1,]", "{\"a\": 1,}", "[1 2]", "{\"a\" 1}", "{a: 1}", "{'a': 1}", "[", "{\"a\": 1", "\"abc",
            "{\"a\"}",
            "[,1]", "tru", "nul", "True", "NULL", "undefined",
        ])
    func brokenStructure(_ text: String) {
        #expect(failure(text) != nil)
    }

    @Test(
        "JSON numbers",
        arguments: [
            ("0", 0.0), ("-0", 0.0), ("12", 12), ("-3.5", -3.5), ("1e3", 1000), ("1E-2", 0.01), ("2.5e+2", 250),
            ("0.25", 0.25),
            ("10", 10), ("-0.0", 0),
        ])
    func numbers(_ text: String, _ value: Double) throws {
        #expect(try parse(text) == .number(value))
    }

    @Test(
        "not JSON numbers",
        arguments: [
            "01", "-01", "00", ".5", "-.5", "1.", "1.e5", "-", "+1", "1e", "1e+", "--1", "0x10", "NaN", "Infinity",
            "-Infinity", "1e999", "1-2",
        ])
    func notNumbers(_ text: String) {
        #expect(failure(text) != nil)
        #expect(failure("[\(text)]") != nil)
    }

    @Test("string escapes")
    func escapes() throws {
        #expect(try parse(#""a\"b\\c\/d\be\ff\ng\rh\ti""#) == .string("a\"b\\c/d\u{08}e\u{0C}f\ng\rh\ti"))
        #expect(failure(#""\x""#) != nil)
        #expect(failure(#""\'""#) != nil)
        #expect(failure("\"tab\there\"") != nil) // a raw control character
    }

    @Test("unicode escapes, including surrogate pairs")
    func unicodeEscapes() throws {
        #expect(try parse(#""\u00e9\u00C9""#) == "éÉ")
        #expect(try parse(#""\u4e2d\u6587""#) == "中文")
        #expect(try parse(#""\ud83d\ude00""#) == "😀")
        #expect(try parse(#""\u0000""#) == .string("\u{0}"))
        #expect(try parse(#""中文 😀""#) == "中文 😀")
    }

    @Test(
        "broken unicode escapes are errors",
        arguments: [
            #""\ud83d""#, #""\ude00""#, #""\ud83dx""#, #""\ud83d\u0041""#, #""\ud83d\ud83d""#, #""\u12""#, #""\u12g4""#,
            #""\u""#,
        ])
    func brokenUnicodeEscapes(_ text: String) {
        #expect(failure(text) != nil)
    }

    @Test("invalid UTF-8 is an error, not a silent replacement character")
    func invalidUTF8() {
        for bytes: [UInt8] in [[0x22, 0xFF, 0x22], [0x22, 0xC3, 0x22], [0x22, 0xED, 0xA0, 0x80, 0x22]] {
            #expect(throws: JSONError.self) { try JSONValue(parsing: Data(bytes)) }
        }
        #expect((try? JSONValue(parsing: Data([0x22, 0xC3, 0xA9, 0x22]))) == "é")
    }

    @Test("nesting is limited to 512 levels")
    func nesting() throws {
        let deep = String(repeating: "[", count: 512) + String(repeating: "]", count: 512)
        _ = try parse(deep)
        let tooDeep = String(repeating: "[", count: 513) + String(repeating: "]", count: 513)
        #expect(failure(tooDeep) == "invalid JSON at line 1, column 513: nested too deeply")
        let objects = String(repeating: #"{"a":"#, count: 513) + "1" + String(repeating: "}", count: 513)
        #expect(failure(objects) == "invalid JSON at line 1, column 2561: nested too deeply")
        #expect(failure(String(repeating: "[", count: 100_000)) != nil)
    }
}

@Suite("JSONValue: printing")
struct JSONPrintingTests {
    @Test("text is compact with sorted keys")
    func sortedKeys() throws {
        let v = try parse(#"{"b": 1, "a": [true, null, "x"], "c": {"z": 0, "y": {}}}"#)
        #expect(v.text == #"{"a":[true,null,"x"],"b":1,"c":{"y":{},"z":0}}"#)
    }

    @Test("the same value prints the same text, however it was built")
    func deterministic() {
        let a: JSONValue = ["x": 1, "y": 2, "z": 3, "w": 4, "v": 5]
        let b: JSONValue = ["v": 5, "w": 4, "z": 3, "y": 2, "x": 1]
        #expect(a.text == b.text)
        #expect(a.text == #"{"v":5,"w":4,"x":1,"y":2,"z":3}"#)
    }

    @Test(
        "integers print without a fraction",
        arguments: [
            (JSONValue.int(0), "0"), (.int(60), "60"), (.int(-5), "-5"), (.number(1.0), "1"), (.number(-0.0), "0"),
            (.number(123_456_789_012_345), "123456789012345"), (.number(0.5), "0.5"), (.number(-12.25), "-12.25"),
        ])
    func numbers(_ value: JSONValue, _ text: String) {
        #expect(value.text == text)
    }

    @Test("strings escape quotes, backslashes and control characters, nothing else")
    func stringEscaping() {
        #expect(JSONValue.string("a\"b\\c").text == #""a\"b\\c""#)
        #expect(JSONValue.string("l1\nl2\r\t").text == #""l1\nl2\r\t""#)
        #expect(JSONValue.string("\u{01}\u{1F}").text == #""\u0001\u001f""#)
        #expect(JSONValue.string("中文 😀 /").text == "\"中文 😀 /\"")
    }

    @Test("pretty text indents by two spaces, keys sorted")
    func pretty() {
        let v: JSONValue = ["b": [1, 2], "a": "x", "e": [], "o": [:]]
        #expect(
            v.prettyText == """
                {
                  "a": "x",
                  "b": [
                    1,
                    2
                  ],
                  "e": [],
                  "o": {}
                }
                """)
    }

    @Test(
        "printing then parsing gives the value back",
        arguments: [
            JSONValue.null, true, 0, -7, .number(0.1), .number(1e15), .number(-2.5e-7), .number(1e300),
            .number(9_007_199_254_740_992),
            "", "\u{0}\u{7F}\u{2028}😀\"\\/", [], [:], [1, "x", [nil, false]],
            ["format": "replan/1", "users": [["id": "mei", "settings": ["sessionMinutes": 60, "tone": "沉著穩重的專家"]]]],
        ])
    func roundTrip(_ value: JSONValue) throws {
        #expect(try parse(value.text) == value)
        #expect(try parse(value.prettyText) == value)
        #expect(try parse(value.text).text == value.text)
    }

    @Test("integer values read back as Int only when they are whole")
    func intValue() throws {
        #expect(try parse("60").intValue == 60)
        #expect(try parse("-3").intValue == -3)
        #expect(try parse("1e2").intValue == 100)
        #expect(try parse("60.5").intValue == nil)
        #expect(try parse("\"60\"").intValue == nil)
        #expect(JSONValue.number(1e300).intValue == nil)
    }

    @Test("type names for error messages")
    func typeNames() {
        #expect(JSONValue.null.typeName == "null")
        #expect(JSONValue.int(1).typeName == "a number")
        #expect(JSONValue.array([]).typeName == "an array")
        #expect(JSONValue.object([:]).typeName == "an object")
    }
}
