CREATE TABLE "web_sessions" (
	"id_hash" "bytea" PRIMARY KEY NOT NULL,
	"user_id" uuid NOT NULL,
	"family_id" uuid NOT NULL,
	"csrf_token" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_seen_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
DROP INDEX "consent_events_record";--> statement-breakpoint
ALTER TABLE "web_sessions" ADD CONSTRAINT "web_sessions_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "web_sessions" ADD CONSTRAINT "web_sessions_family_id_token_families_id_fk" FOREIGN KEY ("family_id") REFERENCES "public"."token_families"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "web_sessions_user" ON "web_sessions" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "web_sessions_expires" ON "web_sessions" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "consent_events_record_attribute" ON "consent_events" USING btree ("record_id","purpose_id","attribute_id","occurred_at","written");--> statement-breakpoint
CREATE INDEX "consent_events_org_time" ON "consent_events" USING btree ("org_id","occurred_at");--> statement-breakpoint
CREATE INDEX "consent_records_user" ON "consent_records" USING btree ("user_id");