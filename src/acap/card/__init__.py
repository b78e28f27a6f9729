"""acap.card._agent_card."""
