-- How the console shows the tenant's amounts: the ISO 4217 currency they are minor units of (cents of
-- EUR), or NULL (the default) to show them as the API holds them. Kept on the tenant's row beside its
-- other settings; the API never converts an amount, it only says what they are in.
ALTER TABLE tenants ADD COLUMN display_currency TEXT CHECK (display_currency IS NULL OR (length(display_currency) = 3 AND display_currency GLOB '[A-Z][A-Z][A-Z]'));
