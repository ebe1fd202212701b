DROP INDEX "organisation_events_unsequenced";--> statement-breakpoint
ALTER TABLE "organisation_events" ADD COLUMN "held" boolean DEFAULT false NOT NULL;--> statement-breakpoint
CREATE INDEX "organisation_events_unsequenced" ON "organisation_events" USING btree ("org_id","pos") WHERE seq IS NULL AND NOT held;