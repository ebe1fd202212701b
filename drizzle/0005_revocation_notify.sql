-- Announces every revocation or deletion of a session (token family) or an API key on the channel
-- assent_revocations, with the user's ID as payload, so that every serving process drops its cached
-- "this credential is live" answers for that user at once (src/identity/liveness.ts). Triggers see
-- every path: logout, refresh-token reuse, password change or reset, account deletion (cascades
-- included), an IdP logout, and any process (the CLI, another server).
CREATE FUNCTION assent_notify_revocation() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' OR (OLD.revoked_at IS NULL AND NEW.revoked_at IS NOT NULL) THEN
    PERFORM pg_notify('assent_revocations', OLD.user_id::text);
  END IF;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER token_families_revocation AFTER UPDATE OF revoked_at OR DELETE ON token_families
  FOR EACH ROW EXECUTE FUNCTION assent_notify_revocation();
--> statement-breakpoint
CREATE TRIGGER api_keys_revocation AFTER UPDATE OF revoked_at OR DELETE ON api_keys
  FOR EACH ROW EXECUTE FUNCTION assent_notify_revocation();
