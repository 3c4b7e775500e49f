#!/usr/bin/env python3
"""Writes the 10-minute pattern of `make bench`: overlapping continuous events with intensity and
sharpness curves, and transients between them. Deterministic.
usage: gen-long-pattern.py OUT [SECONDS]
"""
import json, random, sys

out = sys.argv[1]
seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 600.0
rng = random.Random(42)
pattern = []

def params(intensity, sharpness, **extra):
    p = [{"ParameterID": "HapticIntensity", "ParameterValue": intensity},
         {"ParameterID": "HapticSharpness", "ParameterValue": sharpness}]
    for key, value in extra.items():
        p.append({"ParameterID": key, "ParameterValue": value})
    return p

t = 0.0
while t < seconds - 4:
    # A continuous event every 0.5 s lasting 1-3 s: two to six sound at once.
    pattern.append({"Event": {"Time": round(t, 4), "EventType": "HapticContinuous",
                              "EventDuration": round(rng.uniform(1.0, 3.0), 4),
                              "EventParameters": params(round(rng.uniform(0.3, 0.9), 3), round(rng.uniform(0, 1), 3),
                                                        AttackTime=0.2, ReleaseTime=0.3)}})
    # Transients every 0.1 s.
    for k in range(5):
        pattern.append({"Event": {"Time": round(t + 0.1 * k + 0.05, 4), "EventType": "HapticTransient",
                                  "EventParameters": params(round(rng.uniform(0.2, 1.0), 3), round(rng.uniform(0, 1), 3))}})
    t += 0.5

# Curves: one per parameter per 2 s window, 16 points, never overlapping.
window = 2.0
t = 0.0
while t < seconds:
    for pid, low, high in (("HapticIntensityControl", 0.3, 1.0), ("HapticSharpnessControl", -0.3, 0.3)):
        points = [{"Time": round(window * 0.95 * k / 15, 4), "ParameterValue": round(rng.uniform(low, high), 3)}
                  for k in range(16)]
        pattern.append({"ParameterCurve": {"ParameterID": pid, "Time": round(t, 4),
                                           "ParameterCurveControlPoints": points}})
    t += window

with open(out, "w") as f:
    json.dump({"Version": 1.0, "Metadata": {"Description": "hap bench: 10 minutes of overlapping events"},
               "Pattern": pattern}, f, indent=1)
