"""The joseki command (``cli``, ``queries``, ``options``) and the loop over
the stages (``run``): a stage whose inputs and parameters have not changed
since it last ran is kept; any other is handed to its runner, and what the
runner gives back is keyed and committed."""
