import PairSimCore

/// Reads the `phone:` section of a topology.
enum PhoneConfigLoader {
    static func parse(_ reader: YAMLReader) throws(ConfigError) -> PhoneConfig {
        _ = try reader.mapping(allowed: [])
        return PhoneConfig()
    }
}
