#if canImport(Glibc)
import Glibc
#endif

/// Unbuffered writes to the standard streams, safe to mix with event output.
public enum FileHandleWriter {
    public static func standardError(_ text: String) {
        var copy = text
        copy.withUTF8 { EventSink.writeAll(STDERR_FILENO, UnsafeRawBufferPointer($0)) }
    }

    public static func standardOutput(_ text: String) {
        var copy = text
        copy.withUTF8 { EventSink.writeAll(STDOUT_FILENO, UnsafeRawBufferPointer($0)) }
    }
}
