-- Consent events become write-once: an event's seal (seq and hashes) moves to consent_event_seals,
-- written by the sealer, and the events waiting for it are listed in consent_event_queue, so sealing
-- no longer rewrites each event row (src/db/schema-consent.ts). Existing seals and unsealed events
-- are carried over before the columns go.
CREATE TABLE "consent_event_queue" (
	"org_id" uuid NOT NULL,
	"written" bigint NOT NULL,
	"event_id" uuid NOT NULL,
	CONSTRAINT "consent_event_queue_org_id_written_pk" PRIMARY KEY("org_id","written")
);
--> statement-breakpoint
CREATE TABLE "consent_event_seals" (
	"org_id" uuid NOT NULL,
	"seq" bigint NOT NULL,
	"event_id" uuid NOT NULL,
	"content_hash" "bytea" NOT NULL,
	"prev_link" "bytea" NOT NULL,
	"link" "bytea" NOT NULL,
	CONSTRAINT "consent_event_seals_org_id_seq_pk" PRIMARY KEY("org_id","seq")
);
--> statement-breakpoint
INSERT INTO "consent_event_seals" ("org_id", "seq", "event_id", "content_hash", "prev_link", "link")
  SELECT "org_id", "seq", "id", "content_hash", "prev_link", "link" FROM "consent_events" WHERE "seq" IS NOT NULL;--> statement-breakpoint
INSERT INTO "consent_event_queue" ("org_id", "written", "event_id")
  SELECT "org_id", "written", "id" FROM "consent_events" WHERE "seq" IS NULL;--> statement-breakpoint
DROP INDEX "consent_events_org_seq";--> statement-breakpoint
DROP INDEX "consent_events_unsealed";--> statement-breakpoint
CREATE UNIQUE INDEX "consent_event_seals_event" ON "consent_event_seals" USING btree ("event_id");--> statement-breakpoint
ANALYZE "consent_event_seals";--> statement-breakpoint
ALTER TABLE "consent_events" DROP COLUMN "seq";--> statement-breakpoint
ALTER TABLE "consent_events" DROP COLUMN "content_hash";--> statement-breakpoint
ALTER TABLE "consent_events" DROP COLUMN "prev_link";--> statement-breakpoint
ALTER TABLE "consent_events" DROP COLUMN "link";--> statement-breakpoint
-- Evidence is append-only in the database too: any UPDATE, DELETE or TRUNCATE of consent events or of
-- their seals is refused, whatever issues it. Threat: a bug or a stray statement rewriting evidence.
-- Whoever may disable triggers (the tables' owner) can still edit rows; the hash chain detects that.
CREATE FUNCTION assent_refuse_evidence_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'consent evidence is append-only: % on % refused', TG_OP, TG_TABLE_NAME USING ERRCODE = 'insufficient_privilege';
END
$$;
--> statement-breakpoint
CREATE TRIGGER consent_events_append_only BEFORE UPDATE OR DELETE OR TRUNCATE ON consent_events
  FOR EACH STATEMENT EXECUTE FUNCTION assent_refuse_evidence_change();
--> statement-breakpoint
CREATE TRIGGER consent_event_seals_append_only BEFORE UPDATE OR DELETE OR TRUNCATE ON consent_event_seals
  FOR EACH STATEMENT EXECUTE FUNCTION assent_refuse_evidence_change();
