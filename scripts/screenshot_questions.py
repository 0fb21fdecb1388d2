"""The lab's Questions tab at laptop size (1366×768): a question set stored in the data folder over the sample
corpus (questions marked by hand, drafts reviewed and not), its questions with references and provenance, what the
set can tell, and the review queue (``questions-tab.png``).

Run from the repository root (offscreen is enough: the window is grabbed, not the screen):
    HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 QT_QPA_PLATFORM=offscreen \\
    .venv/bin/python scripts/screenshot_questions.py [OUT_DIR]
"""

from __future__ import annotations

from screenshot_support import LaptopWindow, output_dir

from workbench.ui.app.launch import SAMPLE_DIR

BY_HAND = [
    ("deploy-guide.md", "Why must the migration run before the rollout?",
     "The database schema must be migrated before any new replica starts."),
    ("deploy-guide.md", "How many replicas serve traffic during a deploy?",
     "at least two replicas serve traffic at any moment"),
    ("lab-safety.md", "What gloves are worn in the wet lab?", "Wear nitrile gloves and a buttoned lab coat"),
    ("lab-safety.md", "Why does the fume hood sash stay low?",
     "The fume hood only protects you when air flows into it fast enough."),
]
DRAFTS = [
    ("lab-safety.md", "How are small spills cleaned up?", "Small spills of less than 100 ml are cleaned with the "
                                                          "spill kit under the sink.", True),
    ("deploy-guide.md", "Where is the release tag checked out?", "Check out the tag into `/srv/orbit/releases/`",
     False),
    ("lab-safety.md", "What happens after a large spill?", "Larger spills, or any spill of a volatile solvent, "
                                                           "mean you leave the room", False),
]


def main() -> None:
    """Store the sample documents and a small set, open the Questions tab with its review queue, and save
    ``questions-tab.png``."""
    out = output_dir()
    shot = LaptopWindow("questions")
    from workbench.core.store.question_sets import Provenance

    ws = shot.ws
    ws.add_documents([str(p) for p in sorted(SAMPLE_DIR.iterdir()) if p.suffix in (".md", ".txt")])
    ids = {row["path"].rsplit("/", 1)[-1]: int(row["id"]) for row in ws.records.documents()}
    bank = ws.questions
    bank.create("orbit and lab")
    for doc, question, quote in BY_HAND:
        bank.add("orbit and lab", question, [bank.locate(quote, [ids[doc]])])
    for doc, question, quote, reviewed in DRAFTS:
        span = bank.locate(quote, [ids[doc]])
        bank.add("orbit and lab", question, [span], provenance=Provenance(
            "drafted", model="qwen3:1.7b", passage=(ids[doc], max(0, span.start - 200), span.end + 200),
            reviewed=reviewed))
    window = shot.window
    lab = window.eval_view
    window.set_mode("evaluate")
    tab = lab.questions_tab
    tab.refresh(choose="orbit and lab")
    lab.lab_tabs.setCurrentWidget(tab)
    tab.questionActivated.disconnect()  # the picture stays on the tab (a selection would open Explore)
    tab.start_review()
    shot.settle()
    shot.save(out, "questions-tab.png")
    shot.close()


if __name__ == "__main__":
    main()
