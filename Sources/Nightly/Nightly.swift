// Module Nightly.
