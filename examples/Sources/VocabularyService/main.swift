// A small driver for the vocabulary service: one game round in meanings, the off switch, and
// going to the background and back (the engine stopped, then started lazily by the next fire).
// Fires are spaced so that each event ends before the next.
import Foundation

let service = HapticsService()

@MainActor
func play(_ event: HapticEvent, wait seconds: Double = 0.45) async {
    service.fire(event)
    try? await Task.sleep(nanoseconds: UInt64(seconds * 1e9))
}

await play(.start)
await play(.reveal)
await play(.correct)
await play(.pass)
await play(.timerPulse)
await play(.timerUrgent)
service.isEnabled = false
await play(.correct)          // off: nothing plays
service.isEnabled = true
await play(.stop)
service.handleScenePhase(.background)
try? await Task.sleep(nanoseconds: 200_000_000)
service.handleScenePhase(.active)
await play(.roundEnd)         // a fresh engine, started by this fire
await play(.winner, wait: 1.2)
print("vocabulary-service: \(service.fired) events played")
