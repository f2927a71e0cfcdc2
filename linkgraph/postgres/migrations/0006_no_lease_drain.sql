-- A lease's holder now ends its requests to the host by the lease's
-- expiry, so a process taking over an expired lease waits for the expiry
-- and the host's delay, not for the old owner's fetch timeout: the
-- per-host drain time is gone.
ALTER TABLE crawl_hosts DROP COLUMN IF EXISTS drain_us;
