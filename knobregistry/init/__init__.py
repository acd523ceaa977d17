"""`knobs init`: a starting registry written from a scan."""
