import HapFormat
import HapPlayback
import HapRender
import HapTools

/// The check of ``Rule/vocabularyNameUnfireable`` (declared, with its documentation, among the format's rules).
enum VocabularyNameUnfireable: VocabularyCheck {
  static func check(_ input: VocabularyCheckInput, findings: inout FindingCollector) {
    for (name, index) in input.firstFile.sorted(by: { $0.value < $1.value }) where !ServiceRequest.canFire(name) {
      let place = input.location(of: name)
      findings.add(
        .vocabularyNameUnfireable,
        "the event \"\(Format.visibleControls(Format.excerpt(name)))\" of '\(Format.visibleControls(Format.excerpt(input.patterns[index].file.fileName)))' cannot be fired: \(ServiceRequest.unfireableReason(name)); rename the file",
        at: place.offset, pointer: place.pointer)
    }
  }
}
