-- Each rate-limit counter carries the end of its window, written by the statement that counts
-- (src/ratelimit/store.ts `hit`), so that the purge deletes the expired ones without knowing whose
-- key families they are and in which window each is counted.
-- The counters already stored get an end from their rule: `fed-authorize:` is counted in a fixed
-- 60 s window (AUTHORIZE_LIMIT, src/federation/broker.ts), so it gets exactly that. `forgot:`
-- (default 900 s) and `anon:` (default 3600 s) are counted in windows an operator sets
-- (ASSENT_FORGOT_WINDOW_SECONDS, ASSENT_ANONYMOUS_WINDOW_SECONDS) that a migration cannot read, and
-- no other family is written: those get a day after their window began, longer than either
-- default, so that a window configured up to a day long does not lapse at the upgrade (a purged
-- counter starts again from 1), while none stays for ever. The next event on a key sets its exact end.
ALTER TABLE "rate_limits" ADD COLUMN "expires_at" timestamp with time zone;--> statement-breakpoint
UPDATE "rate_limits" SET "expires_at" = "window_start" + CASE WHEN starts_with("key", 'fed-authorize:') THEN interval '60 seconds' ELSE interval '1 day' END;--> statement-breakpoint
ALTER TABLE "rate_limits" ALTER COLUMN "expires_at" SET NOT NULL;
