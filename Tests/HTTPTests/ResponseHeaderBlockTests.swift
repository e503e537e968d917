import ReplanTestSupport
import Testing

@testable import HTTP

@Suite struct ResponseHeaderBlockTests {
    private func block(_ lines: [String]) -> [String: String] {
        var block = ResponseHeaderBlock()
        for line in lines { block.consume(line: line) }
        return block.fields
    }

    @Test func namesAreLowercasedAndValuesTrimmed() {
        let fields = block(["HTTP/1.1 200 OK\r\n", "Content-Type:  application/json \r\n", "\r\n"])
        #expect(fields == ["content-type": "application/json"])
    }

    @Test func onlyTheFinalBlockIsKept() {
        let fields = block([
            "HTTP/1.1 100 Continue\r\n", "X-Interim: 1\r\n", "\r\n",
            "HTTP/1.1 429 Too Many Requests\r\n", "Retry-After: 2\r\n", "\r\n",
        ])
        #expect(fields == ["retry-after": "2"])
    }

    @Test func repeatedFieldsAreJoined() {
        let fields = block(["HTTP/1.1 200 OK\r\n", "Vary: Origin\r\n", "vary: Accept\r\n"])
        #expect(fields["vary"] == "Origin, Accept")
    }

    @Test func foldedLinesContinueTheField() {
        let fields = block(["HTTP/1.1 200 OK\r\n", "X-Long: first\r\n", "\t second\r\n"])
        #expect(fields["x-long"] == "first second")
    }
}
