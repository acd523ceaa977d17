"""`knobs explain`: everything known about one knob."""
