/// An append-mostly list kept in chunks of 8192 elements, for a store's samples of one type.
///
/// An array doubles and copies everything it holds into fresh memory each time it fills; with a
/// million samples that was most of the phone's time in `bench.sh sync` and `replay` (page faults
/// on the new memory, then the copy: ~1/3 of the phone's samples in perf). Chunks are filled in
/// place and never move.
struct ChunkedList<Element: Hashable & Sendable>: RandomAccessCollection, Hashable, Sendable {
    static var shift: Int { 13 }
    static var chunkSize: Int { 1 << shift }

    private var chunks: [[Element]] = []
    private(set) var count = 0

    init() {}

    init(_ elements: some Sequence<Element>) {
        for element in elements { append(element) }
    }

    var startIndex: Int { 0 }
    var endIndex: Int { count }

    subscript(position: Int) -> Element {
        chunks[position >> Self.shift][position & (Self.chunkSize - 1)]
    }

    mutating func append(_ element: Element) {
        if count & (Self.chunkSize - 1) == 0 {
            var chunk: [Element] = []
            chunk.reserveCapacity(Self.chunkSize)
            chunks.append(chunk)
        }
        chunks[chunks.count - 1].append(element)
        count += 1
    }

    mutating func removeAll(where shouldBeRemoved: (Element) throws -> Bool) rethrows {
        let kept = try filter { try !shouldBeRemoved($0) }
        guard kept.count != count else { return }
        self = ChunkedList(kept)
    }

    static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.count == rhs.count && lhs.elementsEqual(rhs)
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(count)
        for element in self { hasher.combine(element) }
    }
}
