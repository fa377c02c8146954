-- Per-locale lower-cased names ({ "fr": "été", ... }, locale tags lower-cased too): the
-- `locale`-narrowed name filter and name sort read these, because SQLite's lower() folds ASCII only
-- and "case-insensitive" must hold for every script (É/é, Ü/ü).
ALTER TABLE operations ADD COLUMN name_folded TEXT NOT NULL DEFAULT '{}';
UPDATE operations SET name_folded = (SELECT json_group_object(lower(key), lower(value)) FROM json_each(operations.name));
