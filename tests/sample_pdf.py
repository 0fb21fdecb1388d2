"""The text of the sample corpus's PDF, ``resources/sample/greenhouse-sensors.pdf``, and its writer.

``python tests/sample_pdf.py`` rewrites the PDF from these lines (with ``pdfgen.make_pdf``);
``test_sample_corpus.py`` checks that the committed file is exactly what this writes.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from pdfgen import make_pdf

PDF_PATH = Path(__file__).resolve().parents[1] / "resources" / "sample" / "greenhouse-sensors.pdf"

PAGES = [
    [
        "Greenhouse sensor maintenance",
        "",
        "The greenhouse has twelve humidity sensors, one per bed, read every five minutes.",
        "A data logger in the potting room collects the readings and drives the misting valves:",
        "when the humidity of a bed falls below its set point, the logger opens that bed's valve",
        "for thirty seconds. Wrong readings therefore do not only spoil the records, they water",
        "the plants too much or too little. This note explains how the sensors are kept honest.",
        "",
        "Why sensors drift: humidity sensors slowly absorb fertiliser salts from the air,",
        "and after about six months they read five to ten percent too high.",
        "The salt settles on the sensing film and holds water of its own, so the sensor reports",
        "moisture that is not in the air. The error grows slowly and evenly, which is why nobody",
        "notices it in the daily graphs: every bed seems a little drier each week, the logger",
        "mists a little less, and the seedlings on the benches near the door start to wilt first.",
        "",
        "Calibrating a sensor",
        "Place the sensor in the salt jar (75 percent humidity) for two hours, then run",
        "greenhouse-cli calibrate --bed NUMBER --reference 75 and check that it reports ok.",
        "The salt jar is the sealed glass jar with a layer of wet table salt on the bottom,",
        "kept on the shelf above the potting bench. Screw the lid on tightly with the sensor and",
        "its cable inside; the cable passes through the notch in the rubber seal. Calibrate every",
        "sensor twice a year, in March and in September, and write the date on its label.",
        "",
        "Replacing a sensor",
        "Sensors that still read more than three percent off after calibration are replaced.",
        "Unplug the cable, swap the sensor, and run greenhouse-cli register --bed NUMBER.",
        "The new sensor reports within five minutes.",
        "",
        "Why readings are averaged over fifteen minutes",
        "A single reading jumps whenever the door opens, a misting nozzle fires nearby or the sun",
        "comes out from behind a cloud. If the logger acted on single readings it would open and",
        "close the valves every few minutes, wearing them out and soaking the beds. Averaging the",
        "last three readings smooths the jumps while still following a real change within the hour.",
    ],
    [
        "Reading the dashboard",
        "Open the greenhouse dashboard on the potting room computer or run greenhouse-cli status.",
        "Each bed shows its fifteen-minute average, its set point and the time of the last reading.",
        "A bed shown in grey has not reported for twenty minutes: check its cable first, then its",
        "sensor. The command greenhouse-cli history --bed NUMBER --days 7 prints a week of readings",
        "and is the quickest way to see a slow drift before it harms the plants.",
        "",
        "Why the misting valves are flushed every month",
        "The misting water carries the same fertiliser as the irrigation. Where it dries, inside",
        "the valve and the nozzle, it leaves a crust that narrows the opening month by month. A",
        "half blocked nozzle sprays less than the logger expects, so the bed stays dry although",
        "the records show the valve opening as often as ever. A blocked valve is easy to mistake",
        "for a faulty sensor, and a sensor is then replaced for nothing.",
        "",
        "Flushing the valves",
        "On the first Monday of the month, switch the logger to manual mode with",
        "greenhouse-cli mode manual. Fill the flushing tank with clean water and a cup of vinegar,",
        "connect it to the main line and run greenhouse-cli flush --all --seconds 60. Unscrew one",
        "nozzle per bed and check that it sprays a fine, even cone; soak blocked nozzles in the",
        "vinegar bath overnight. Switch back with greenhouse-cli mode auto when you are done.",
        "",
        "Why the logger runs on a battery backup",
        "A power cut in summer stops the misting, and the logger loses its clock. When power",
        "returns, a logger without a clock stamps readings with the wrong time and the records of",
        "the day become useless. The battery keeps the logger and the valves running for four",
        "hours, long enough for the night guard to notice and call the caretaker.",
        "",
        "Changing the backup battery",
        "The battery lasts about three years. Its date is written on the case. Switch the logger",
        "off with greenhouse-cli shutdown, wait for the green light to go out, unplug the old",
        "battery and connect the new one, red cable first. Start the logger with the switch on its",
        "side and run greenhouse-cli clock --sync to set its clock from the network.",
    ],
    [
        "Why new sensors are checked before they are installed",
        "Sensors from the same box can differ by several percent when they are new, and one in",
        "twenty arrives faulty. A faulty new sensor in a bed is worse than an old one, because",
        "nobody suspects it. Checking every new sensor in the salt jar before it goes into a bed",
        "costs two hours and saves a season of wrong readings.",
        "",
        "Checking a new sensor",
        "Label the sensor with its serial number, place it in the salt jar for two hours and run",
        "greenhouse-cli check --serial NUMBER --reference 75. A sensor that reads between 72 and 78",
        "percent is accepted and goes into the spare box; any other sensor goes back to the",
        "supplier with the printout of the check.",
        "",
        "Why the vents open before the misting stops",
        "On a hot afternoon the air under the glass can reach forty degrees within an hour of",
        "sunshine. Misting cools the beds, but in still air it also raises the humidity until",
        "leaves stay wet, and wet leaves in warm air are where grey mould starts. Opening the roof",
        "vents first lets the moist air out while the misting still holds the temperature down;",
        "closing them again before the misting stops keeps the beds from drying out at dusk.",
        "",
        "Setting the vent schedule",
        "The vents follow the schedule in the logger's configuration file. Show it with",
        "greenhouse-cli vents show. Change the opening temperature with",
        "greenhouse-cli vents set --open-above 28 --close-below 22, and the delay between the",
        "vents and the misting with greenhouse-cli vents set --lead-minutes 10. The new schedule",
        "applies from the next reading. Note every change in the maintenance book with the reason.",
        "",
        "Why the sensors are cleaned with distilled water only",
        "Tap water leaves lime on the sensing film, and cleaning sprays leave a film of their own;",
        "both hold moisture exactly as the fertiliser salts do and make the sensor read high.",
        "A sensor wiped with a household cleaner can drift more in a day than in half a year.",
        "",
        "Cleaning a sensor",
        "Unscrew the protective cap, rinse the cap and the filter under distilled water from the",
        "wash bottle and let them dry in the air for an hour. Never touch the sensing film itself.",
        "Put the cap back on and check with greenhouse-cli status that the bed reports again.",
        "",
        "Records",
        "The logger keeps a year of readings on its own disk and copies them every night to the",
        "institute file server. Calibrations, replacements and flushes are written in the",
        "maintenance book beside the potting bench, with the date, the bed and your initials.",
    ],
]


def write(path: Path = PDF_PATH) -> Path:
    """Write the sample PDF to ``path``."""
    return make_pdf(PAGES, path)


if __name__ == "__main__":
    print(write())
