"""Print the path of the Datasette metadata file (for ``datasette --metadata``)."""

from tcab.results.datasette import METADATA

print(METADATA)
