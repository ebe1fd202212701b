-- Announces every change of a user's roles in an organisation (added, removed, or deleted with the
-- account or the organisation, cascades included) on the channel assent_roles, with the user's ID
-- as payload, so that every serving process drops its cached roles of that user at once
-- (src/orgs/roles-cache.ts). Threat: a removed role still honoured by another process's cache.
CREATE FUNCTION assent_notify_roles() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM pg_notify('assent_roles', NEW.user_id::text);
  ELSE
    PERFORM pg_notify('assent_roles', OLD.user_id::text);
    IF TG_OP = 'UPDATE' AND NEW.user_id <> OLD.user_id THEN
      PERFORM pg_notify('assent_roles', NEW.user_id::text);
    END IF;
  END IF;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER user_roles_notify AFTER INSERT OR UPDATE OR DELETE ON user_roles
  FOR EACH ROW EXECUTE FUNCTION assent_notify_roles();
