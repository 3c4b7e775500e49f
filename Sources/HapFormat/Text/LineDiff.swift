/// A line diff of two texts in the unified format (`@@ -a,b +c,d @@`, then ` `, `-` and `+`
/// lines), for when the patterns cannot be compared as patterns (`hap diff` as git's driver,
/// when one side has errors).
///
/// The common first and last lines are set aside, and the longest common subsequence of the
/// lines between is found with a table of `n × m` cells. Above ``maximumCells`` no table is
/// built and the result is ``Result/tooLarge(oldLines:newLines:)``, so the cost stays bounded
/// for any input.
public enum LineDiff {
  /// The largest table built: 4 million cells (16 MB).
  public static let maximumCells = 4_000_000

  public enum Result: Equatable, Sendable {
    /// The texts are the same, line for line.
    case same
    /// The hunks, as lines without line ends.
    case hunks([String])
    /// Too many differing lines to align within ``LineDiff/maximumCells``.
    case tooLarge(oldLines: Int, newLines: Int)
  }

  enum Operation: Equatable {
    case keep, delete, insert
  }

  /// Compares `old` and `new` line by line, with `context` unchanged lines around each change.
  public static func unified(
    _ old: String, _ new: String, context: Int = 3, maximumCells: Int = LineDiff.maximumCells
  ) -> Result {
    let a = lines(old)
    let b = lines(new)
    guard let operations = operations(a, b, maximumCells: maximumCells) else {
      return .tooLarge(oldLines: a.count, newLines: b.count)
    }
    guard operations.contains(where: { $0 != .keep }) else { return .same }
    return .hunks(hunks(operations, a, b, context: context))
  }

  /// The lines of `text`; a final line end does not start another line.
  static func lines(_ text: String) -> [Substring] {
    // Split at each line feed, a scalar: as Characters, "\r\n" is one and would not split.
    var result = text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false).map {
      Substring(String(String.UnicodeScalarView($0)))
    }
    if result.last == "" { result.removeLast() }
    return result
  }

  /// The edit script turning `a` into `b`, or nil when the lines between the common head and
  /// tail would need more than `maximumCells` cells.
  static func operations(_ a: [Substring], _ b: [Substring], maximumCells: Int) -> [Operation]? {
    var head = 0
    while head < a.count && head < b.count && a[head] == b[head] { head += 1 }
    var tail = 0
    while tail < a.count - head && tail < b.count - head && a[a.count - 1 - tail] == b[b.count - 1 - tail] {
      tail += 1
    }
    let n = a.count - head - tail
    let m = b.count - head - tail
    let (cells, overflow) = n.multipliedReportingOverflow(by: m)
    guard !overflow && cells <= maximumCells else { return nil }
    var result = [Operation](repeating: .keep, count: head)
    result.reserveCapacity(a.count + b.count)
    if n == 0 || m == 0 {
      result += [Operation](repeating: .delete, count: n) + [Operation](repeating: .insert, count: m)
    } else {
      // length[i][j]: the longest common subsequence of a[head + i ..< head + n] and
      // b[head + j ..< head + m].
      let width = m + 1
      var length = [Int32](repeating: 0, count: (n + 1) * width)
      for i in stride(from: n - 1, through: 0, by: -1) {
        for j in stride(from: m - 1, through: 0, by: -1) {
          length[i * width + j] =
            a[head + i] == b[head + j]
            ? length[(i + 1) * width + j + 1] + 1 : max(length[(i + 1) * width + j], length[i * width + j + 1])
        }
      }
      var i = 0
      var j = 0
      while i < n || j < m {
        if i < n && j < m && a[head + i] == b[head + j] {
          result.append(.keep)
          i += 1
          j += 1
        } else if j == m || (i < n && length[(i + 1) * width + j] >= length[i * width + j + 1]) {
          // Deletions before insertions where both keep the longest common subsequence.
          result.append(.delete)
          i += 1
        } else {
          result.append(.insert)
          j += 1
        }
      }
    }
    result += [Operation](repeating: .keep, count: tail)
    return result
  }

  /// Groups the edit script into hunks with `context` unchanged lines around each change.
  /// With `endsWithoutNewline`, the texts' last lines have no line end, and the last line of
  /// each side is followed by `\ No newline at end of file`, as diff(1) writes it.
  static func hunks(
    _ operations: [Operation], _ a: [Substring], _ b: [Substring], context: Int, endsWithoutNewline: Bool = false
  ) -> [String] {
    // Where each operation reads in a and b.
    var positions: [(a: Int, b: Int)] = []
    positions.reserveCapacity(operations.count)
    var x = 0
    var y = 0
    for operation in operations {
      positions.append((x, y))
      if operation != .insert { x += 1 }
      if operation != .delete { y += 1 }
    }
    let changed = operations.indices.filter { operations[$0] != .keep }
    var output: [String] = []
    var index = 0
    while index < changed.count {
      // A hunk runs from its first change to the last change less than 2 × context away.
      var last = index
      while last + 1 < changed.count && changed[last + 1] - changed[last] <= 2 * context + 1 { last += 1 }
      let start = max(0, changed[index] - context)
      let end = min(operations.count, changed[last] + context + 1)
      var oldCount = 0
      var newCount = 0
      var body: [String] = []
      for k in start..<end {
        switch operations[k] {
        case .keep:
          body.append(" " + a[positions[k].a])
          oldCount += 1
          newCount += 1
        case .delete:
          body.append("-" + a[positions[k].a])
          oldCount += 1
        case .insert:
          body.append("+" + b[positions[k].b])
          newCount += 1
        }
      }
      // A side with no lines is numbered by the line before it.
      let oldStart = oldCount == 0 ? positions[start].a : positions[start].a + 1
      let newStart = newCount == 0 ? positions[start].b : positions[start].b + 1
      output.append("@@ -\(oldStart),\(oldCount) +\(newStart),\(newCount) @@")
      if endsWithoutNewline { body = marked(body, operations[start..<end], positions[start..<end], a.count, b.count) }
      output += body
      index = last + 1
    }
    return output
  }

  /// `body` with `\ No newline at end of file` after the last line of either side.
  private static func marked(
    _ body: [String], _ operations: ArraySlice<Operation>, _ positions: ArraySlice<(a: Int, b: Int)>, _ oldCount: Int,
    _ newCount: Int
  ) -> [String] {
    var result: [String] = []
    for (line, (operation, position)) in zip(body, zip(operations, positions)) {
      result.append(line)
      let lastOld = operation != .insert && position.a == oldCount - 1
      let lastNew = operation != .delete && position.b == newCount - 1
      if lastOld || lastNew { result.append("\\ No newline at end of file") }
    }
    return result
  }
}
