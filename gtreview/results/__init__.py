"""A pass's results: the typed run record, the one results loader, analysis and table rows."""
