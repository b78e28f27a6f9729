"""acap.replies._api."""
