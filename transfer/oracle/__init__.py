"""The oracle: scripted skills per app, a solution per task template, and the policy that runs them.

- :mod:`.base` — what a skill is (a generator of actions fed observations) and ``Ctx``.
- :mod:`.skills` — per app, what a person does there (add an alarm, open a conversation).
- :mod:`.solutions` — per task template, the plan that solves it from skills, and the
  registry that finds it by template id (``solution_for``).
- :mod:`.drive` — running a skill against any ``Env``.

:class:`transfer.policies.oracle_policy.OraclePolicy` runs a template's solution as a policy.
"""
