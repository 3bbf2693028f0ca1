#!/usr/bin/env python3
"""Per-package table of a PIT run, from its mutations.xml files, as Markdown; with --survivors, every mutant left alive.

Usage: python3 docs/mutation-summary.py [mutations.xml ...] [--survivors]
Without files it reads every group's report of the -Pmutation run: */target/pit-reports/*/mutations.xml.
"""
import collections
import glob
import sys
import xml.etree.ElementTree as ET

# What PIT counts as detected: a test failed, or the mutant made the tests hang, run out of memory or crash.
DETECTED = {"KILLED", "TIMED_OUT", "MEMORY_ERROR", "RUN_ERROR"}

args = [a for a in sys.argv[1:] if not a.startswith("--")]
paths = args or sorted(glob.glob("*/target/pit-reports/*/mutations.xml"))
if not paths:
    sys.exit("no mutations.xml: run ./mvnw -B -Pmutation -pl lock-test-support,lock-core,lock-autoconfigure test first")
mutations = [m for path in paths for m in ET.parse(path).getroot().findall("mutation")]

by_package = collections.OrderedDict()
for m in sorted(mutations, key=lambda m: m.findtext("mutatedClass")):
    cls = m.findtext("mutatedClass")
    package = cls.rsplit(".", 1)[0].removeprefix("io.github.bizlock").lstrip(".") or "(root)"
    by_package.setdefault(package, collections.Counter())[m.get("status")] += 1

print("| package | mutants | detected | survived | no coverage | score |")
print("| --- | ---: | ---: | ---: | ---: | ---: |")
total = collections.Counter()
for package, counts in by_package.items():
    total.update(counts)
    n = sum(counts.values())
    detected = sum(counts[s] for s in DETECTED)
    print(f"| `{package}` | {n} | {detected} | {counts['SURVIVED']} | {counts['NO_COVERAGE']} | {round(100 * detected / n)} % |")
n = sum(total.values())
detected = sum(total[s] for s in DETECTED)
print(f"| all | {n} | {detected} | {total['SURVIVED']} | {total['NO_COVERAGE']} | {round(100 * detected / n)} % |")

if "--survivors" in sys.argv:
    print()
    for m in sorted(mutations, key=lambda m: (m.findtext("mutatedClass"), int(m.findtext("lineNumber")))):
        if m.get("status") in DETECTED:
            continue
        cls = m.findtext("mutatedClass").removeprefix("io.github.bizlock.")
        print(f"- {m.get('status')} `{cls}.{m.findtext('mutatedMethod')}` line {m.findtext('lineNumber')}:"
              f" {m.findtext('description')}")
