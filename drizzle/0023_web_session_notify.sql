-- Announces every deletion of a web session's row (sign-out, the idle and expiry purge, account
-- deletion's cascade, any process) on the channel assent_revocations, with the user's ID as payload,
-- so that every serving process drops the web sessions it keeps for that user at once
-- (src/identity/liveness.ts). Threat: a signed-out browser still served by another process's cache.
CREATE FUNCTION assent_notify_web_session_end() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('assent_revocations', OLD.user_id::text);
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER web_sessions_end AFTER DELETE ON web_sessions
  FOR EACH ROW EXECUTE FUNCTION assent_notify_web_session_end();
