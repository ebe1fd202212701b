ALTER TABLE "organisations" ADD COLUMN "catalogue_version" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
-- Every change of what an organisation's consent records show (its purposes, its data attributes and
-- the links between them) bumps organisations.catalogue_version in the same transaction. A process
-- that caches the catalogue (src/consent/catalogue.ts) reads the version in the same statement as
-- the consents it combines it with, so a stale copy is never used, whichever process changed it.
CREATE FUNCTION assent_bump_catalogue() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  org uuid;
BEGIN
  IF TG_TABLE_NAME = 'purpose_attributes' THEN
    SELECT p.org_id INTO org FROM purposes p WHERE p.id = (CASE WHEN TG_OP = 'DELETE' THEN OLD.purpose_id ELSE NEW.purpose_id END);
  ELSIF TG_OP = 'DELETE' THEN
    org := OLD.org_id;
  ELSE
    org := NEW.org_id;
  END IF;
  UPDATE organisations SET catalogue_version = catalogue_version + 1 WHERE id = org;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER purposes_catalogue AFTER INSERT OR UPDATE OR DELETE ON purposes
  FOR EACH ROW EXECUTE FUNCTION assent_bump_catalogue();
--> statement-breakpoint
CREATE TRIGGER data_attributes_catalogue AFTER INSERT OR UPDATE OR DELETE ON data_attributes
  FOR EACH ROW EXECUTE FUNCTION assent_bump_catalogue();
--> statement-breakpoint
CREATE TRIGGER purpose_attributes_catalogue AFTER INSERT OR UPDATE OR DELETE ON purpose_attributes
  FOR EACH ROW EXECUTE FUNCTION assent_bump_catalogue();
