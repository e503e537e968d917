import Foundation
import JSON
import Testing

@Suite("JSONCoding: Codable payloads and JSONValue inside them")
struct JSONCodingTests {
    struct Payload: Codable, Equatable {
        var name: String
        var schema: JSONValue
    }

    @Test("whole numbers go out as integers, keys sorted, slashes unescaped")
    func encoding() throws {
        let payload = Payload(name: "a/b", schema: ["maxItems": 10, "minimum": 0.5, "items": ["type": "string"]])
        let text = String(decoding: try JSONCoding.encode(payload), as: UTF8.self)
        #expect(text == #"{"name":"a/b","schema":{"items":{"type":"string"},"maxItems":10,"minimum":0.5}}"#)
    }

    @Test("a JSONValue read through Codable equals the same text parsed")
    func decoding() throws {
        let text = #"{"name":"x","schema":{"a":[1,2.5,true,null,"s"],"b":{}}}"#
        let payload = try JSONCoding.decode(Payload.self, from: Data(text.utf8))
        #expect(payload.schema == (try JSONValue(parsing: text))["schema"])
        #expect(try JSONCoding.decode(Payload.self, from: JSONCoding.encode(payload)) == payload)
    }
}
