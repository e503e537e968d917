// Module HTTP.
