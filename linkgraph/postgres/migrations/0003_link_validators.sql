-- The validators of the response a link was last retrieved with (its ETag
-- and Last-Modified headers as sent), for a conditional request the next
-- time; '' when the server sent none. A constant default makes adding the
-- columns a change of the catalogue only, without rewriting the table.
ALTER TABLE links ADD COLUMN IF NOT EXISTS etag TEXT NOT NULL DEFAULT '';
ALTER TABLE links ADD COLUMN IF NOT EXISTS last_modified TEXT NOT NULL DEFAULT '';
