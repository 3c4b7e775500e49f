import Testing

@testable import HapCore
@testable import HapFormat
@testable import HapPlayback
@testable import HapRender
@testable import HapTools
@testable import HapVocabulary

/// A curve entry; `points` is the JSON array text (may hold markers).
func curveEntry(_ id: String = "HapticIntensityControl", time: String, _ points: String, marker: String = "") -> String
{
  "{\"ParameterCurve\": \(marker){\"ParameterID\": \"\(id)\", \"Time\": \(time), \"ParameterCurveControlPoints\": \(points)}}"
}

/// `[{"Time": t0, "ParameterValue": v0}, ...]`.
func pointList(_ points: [(String, String)]) -> String {
  "[" + points.map { "{\"Time\": \($0.0), \"ParameterValue\": \($0.1)}" }.joined(separator: ", ") + "]"
}

@Suite("Rules: parameter curves")
struct CurveRuleTests {
  // MARK: curve-points-missing

  @Test("curve-points-missing: absent points point at the curve, an empty list at the list")
  func pointsMissing() throws {
    let (result, _) = assertFindings(
      ahap(
        transientEntry,
        #"{"ParameterCurve": ⟨1⟩{"ParameterID": "HapticIntensityControl", "Time": 0}}"#,
        #"{"ParameterCurve": {"ParameterID": "HapticIntensityControl", "Time": 1, "ParameterCurveControlPoints": ⟨2⟩[ ]}}"#
      ),
      [("curve-points-missing", 1), ("curve-points-missing", 2)])
    #expect(
      result.findings("curve-points-missing").map(\.pointer) == [
        "/Pattern/1/ParameterCurve", "/Pattern/2/ParameterCurve/ParameterCurveControlPoints",
      ])
    #expect(try #require(result.pattern).curves.isEmpty)
    #expect(!result.isValid)
  }

  @Test("curve-points-missing: one point is enough")
  func onePoint() throws {
    let result = assertNoFindings(ahap(transientEntry, curveEntry(time: "0", pointList([("0", "0.5")]))))
    #expect(try #require(result.pattern).curves.first?.points.count == 1)
  }

  // MARK: curve-too-many-points

  @Test("curve-too-many-points: 17 points are reported, 16 are not")
  func tooManyPoints() throws {
    // Position and pointer both name the ParameterCurveControlPoints array.
    let (result, _) = assertFindings(
      ahap(
        transientEntry,
        curveEntry(time: "0", "⟨1⟩" + points(17)),
        curveEntry("HapticSharpnessControl", time: "0", points(16))),
      [("curve-too-many-points", 1)])
    #expect(result.isValid)
    #expect(result.single("curve-too-many-points")?.pointer == "/Pattern/1/ParameterCurve/ParameterCurveControlPoints")
    // The curve is kept whole in the model.
    let curves = try #require(result.pattern).curves
    #expect(Set(curves.map(\.points.count)) == [16, 17])
  }

  // MARK: curve-points-unsorted

  @Test("curve-points-unsorted: reported once, at the first point that goes back; the model is sorted")
  func unsorted() throws {
    let (result, _) = assertFindings(
      ahap(
        transientEntry,
        curveEntry(
          time: "1",
          #"[{"Time": 0.5, "ParameterValue": 0.5}, {"Time": ⟨1⟩0.2, "ParameterValue": 0.2}, {"Time": 0.7, "ParameterValue": 0.7}, {"Time": 0, "ParameterValue": 0}]"#
        )),
      [("curve-points-unsorted", 1)])
    #expect(result.isValid)
    #expect(
      result.single("curve-points-unsorted")?.pointer == "/Pattern/1/ParameterCurve/ParameterCurveControlPoints/1/Time")
    let pattern = try #require(result.pattern)
    let curve = try #require(pattern.curves.first)
    let expectedTimes: [Double] = [1 + 0.0, 1 + 0.2, 1 + 0.5, 1 + 0.7]
    #expect(curve.points.map(\.time) == expectedTimes)
    #expect(curve.points.map(\.value) == [0, 0.2, 0.5, 0.7])
    // Each point remembers its place as written.
    #expect(curve.points.map(\.source.item) == [3, 1, 0, 2])
  }

  @Test("curve-points-unsorted: equal times are in order")
  func equalTimes() throws {
    let result = assertNoFindings(
      ahap(transientEntry, curveEntry(time: "0", pointList([("0", "0"), ("0.5", "1"), ("0.5", "0"), ("1", "0")]))))
    let pattern = try #require(result.pattern)
    let curve = try #require(pattern.curves.first)
    #expect(curve.points.map(\.value) == [0, 1, 0, 0])
  }

  // MARK: curve-times-absolute

  @Test("curve-times-absolute: curve Time 2.0 whose first point is at 2.0")
  func absoluteTimes() throws {
    // Position and pointer both name the first point's Time value.
    let (result, _) = assertFindings(
      ahap(
        transientEntry,
        curveEntry(time: "2.0", #"[{"Time": ⟨1⟩2.0, "ParameterValue": 1}, {"Time": 2.5, "ParameterValue": 0}]"#)),
      [("curve-times-absolute", 1)])
    #expect(
      result.single("curve-times-absolute")?.pointer == "/Pattern/1/ParameterCurve/ParameterCurveControlPoints/0/Time")
    // The model takes the file at its word: the points are relative, so the curve starts at 4.
    let pattern = try #require(result.pattern)
    let curve = try #require(pattern.curves.first)
    #expect(curve.start == 4)
    #expect(curve.end == 4.5)
  }

  @Test("curve-times-absolute: the first point as written counts, even when the points are unsorted")
  func absoluteTimesUnsorted() throws {
    // The finding names the point written first, wherever it sorts.
    let (result, _) = assertFindings(
      ahap(
        transientEntry,
        curveEntry(time: "1.5", #"[{"Time": ⟨1⟩1.5, "ParameterValue": 1}, {"Time": ⟨2⟩1, "ParameterValue": 0}]"#)),
      [("curve-times-absolute", 1), ("curve-points-unsorted", 2)])
    #expect(
      result.single("curve-times-absolute")?.pointer == "/Pattern/1/ParameterCurve/ParameterCurveControlPoints/0/Time")
  }

  @Test("curve-times-absolute is not reported for relative points or a curve at Time 0")
  func relativeTimes() {
    assertNoFindings(
      ahap(
        transientEntry,
        curveEntry(time: "2.0", pointList([("0", "1"), ("2.0", "0")])),
        curveEntry("HapticSharpnessControl", time: "0", pointList([("0", "1"), ("0.5", "0")])),
        curveEntry("AudioVolumeControl", time: "0", pointList([("0.5", "1"), ("1", "0")])),
        curveEntry("AudioPanControl", time: "1", pointList([("0.5", "1"), ("1", "0")])),
        // Written-first point is not at the curve's Time, though a later one is.
        curveEntry("AudioPitchControl", time: "3", pointList([("2.5", "1"), ("3", "0")]))))
  }

  // MARK: curve-overlap

  @Test("curve-overlap: two curves of the same ID that overlap")
  func overlap() throws {
    let (result, _) = assertFindings(
      ahap(
        transientEntry,
        curveEntry(time: "0", pointList([("0", "1"), ("1.0", "0")])),
        curveEntry(time: "0.5", pointList([("0", "1"), ("1.0", "0")]), marker: "⟨1⟩")),
      [("curve-overlap", 1)])
    #expect(result.isValid)
    #expect(result.single("curve-overlap")?.pointer == "/Pattern/2/ParameterCurve")
  }

  @Test("curve-overlap is reported on the later curve whatever the file order")
  func overlapReversed() {
    assertFindings(
      ahap(
        curveEntry(time: "0.5", pointList([("0", "1"), ("1.0", "0")]), marker: "⟨1⟩"),
        transientEntry,
        curveEntry(time: "0", pointList([("0", "1"), ("1.0", "0")]))),
      [("curve-overlap", 1)])
  }

  @Test("curve-overlap: a long curve overlaps every later one it covers")
  func overlapLongCurve() {
    assertFindings(
      ahap(
        transientEntry,
        curveEntry(time: "0", pointList([("0", "1"), ("10", "0")])),
        curveEntry(time: "1", pointList([("0", "1"), ("1", "0")]), marker: "⟨1⟩"),
        curveEntry(time: "3", pointList([("0", "1"), ("1", "0")]), marker: "⟨2⟩"),
        curveEntry(time: "10", pointList([("0", "1"), ("1", "0")]))),
      [("curve-overlap", 1), ("curve-overlap", 2)])
  }

  @Test("curve-overlap: different IDs, or one ending where the next starts, do not overlap")
  func noOverlap() {
    assertNoFindings(
      ahap(
        transientEntry,
        curveEntry(time: "0", pointList([("0", "1"), ("1.0", "0")])),
        curveEntry("HapticSharpnessControl", time: "0.5", pointList([("0", "1"), ("1.0", "0")])),
        curveEntry(time: "1.0", pointList([("0", "1"), ("1.0", "0")])),
        curveEntry(time: "1.5", pointList([("0.5", "1"), ("1.0", "0")]))))
  }
}
