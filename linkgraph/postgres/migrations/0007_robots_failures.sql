-- A robots.txt found unreachable is retried where the last process left
-- off: the attempts that failed in a row, the last error, and when the
-- next attempt may start, by the database's clock, whoever holds the host.
ALTER TABLE crawl_hosts ADD COLUMN IF NOT EXISTS robots_failures SMALLINT NOT NULL DEFAULT 0;
ALTER TABLE crawl_hosts ADD COLUMN IF NOT EXISTS robots_error TEXT;
ALTER TABLE crawl_hosts ADD COLUMN IF NOT EXISTS robots_retry_at TIMESTAMPTZ;
