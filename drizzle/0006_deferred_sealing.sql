-- Events are written with their change and sealed into the chain just after the commit by
-- src/consent/sealer.ts, so that changes no longer queue on the chain head's row lock: seq and the
-- hashes are null until sealed, the primary key moves to id, (org_id, seq) stays unique, and
-- "written" (a sequence drawn under the record's lock) gives the order of sealing.
ALTER TABLE "consent_events" DROP CONSTRAINT "consent_events_id_unique";--> statement-breakpoint
ALTER TABLE "consent_events" DROP CONSTRAINT "consent_events_org_id_seq_pk";--> statement-breakpoint
ALTER TABLE "consent_events" ADD PRIMARY KEY ("id");--> statement-breakpoint
ALTER TABLE "consent_events" ALTER COLUMN "seq" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "consent_events" ALTER COLUMN "content_hash" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "consent_events" ALTER COLUMN "prev_link" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "consent_events" ALTER COLUMN "link" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "consent_events" ADD COLUMN "written" bigserial NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "consent_events_org_seq" ON "consent_events" USING btree ("org_id","seq");--> statement-breakpoint
CREATE INDEX "consent_events_unsealed" ON "consent_events" USING btree ("org_id","written") WHERE seq IS NULL;