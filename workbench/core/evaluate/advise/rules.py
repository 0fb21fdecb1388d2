"""The selection rules' names and what each means (``selection`` applies them; kept apart so the command line
can list them without importing the search)."""

RULES = ("best", "one-se", "preset")
DEFAULT_RULE = "one-se"
RULE_TEXT = {
    "best": "the best {objective} on the questions it was chosen on",
    "one-se": "the simplest configuration within one paired standard error of the best {objective} on the questions "
              "it was chosen on",
    "preset": "the best preset stays the pick unless the best configuration is distinguishably better on the "
              "questions it was chosen on (paired sign-flip test on {objective}, alpha 0.05)",
}
"""What each rule means, ``{objective}`` standing for what the advisor optimises (``rule_text``)."""


def rule_text(rule: str, objective: str = "recall") -> str:
    """What ``rule`` means when the advisor optimises ``objective`` (its label: ``recall``, ``IoU`` …)."""
    return RULE_TEXT[rule].format(objective=objective)
