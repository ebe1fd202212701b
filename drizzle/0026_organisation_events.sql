CREATE TABLE "organisation_event_heads" (
	"org_id" uuid PRIMARY KEY NOT NULL,
	"seq" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "organisation_events" (
	"id" uuid PRIMARY KEY NOT NULL,
	"org_id" uuid NOT NULL,
	"pos" bigserial NOT NULL,
	"seq" bigint,
	"type" text NOT NULL,
	"subject" uuid,
	"occurred_at" timestamp with time zone NOT NULL,
	"data" jsonb NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX "organisation_events_feed" ON "organisation_events" USING btree ("org_id","seq");--> statement-breakpoint
CREATE INDEX "organisation_events_unsequenced" ON "organisation_events" USING btree ("org_id","pos") WHERE seq IS NULL;