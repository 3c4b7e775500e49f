/// The file starts with a UTF-8 byte-order mark.
///
/// Core Haptics skips it, but RFC 8259 forbids it in JSON sent between systems and many tools
/// refuse it. Save the file as UTF-8 without BOM.
///
/// `hap fix` removes it (docs/fix.md).
///
/// Bad:
/// ```text
/// <EF BB BF>{"Pattern": []}
/// ```
///
/// Good:
/// ```json
/// {"Pattern": []}
/// ```
extension Rule {
  public static let jsonByteOrderMark = Rule(id: "json-byte-order-mark", severity: .warning)
}
