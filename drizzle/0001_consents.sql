CREATE TABLE "attribute_consents" (
	"record_id" uuid NOT NULL,
	"purpose_id" uuid NOT NULL,
	"attribute_id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"value" text NOT NULL,
	"days" integer DEFAULT 0 NOT NULL,
	"decided_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone,
	CONSTRAINT "attribute_consents_record_id_purpose_id_attribute_id_pk" PRIMARY KEY("record_id","purpose_id","attribute_id")
);
--> statement-breakpoint
CREATE TABLE "consent_chain_heads" (
	"org_id" uuid PRIMARY KEY NOT NULL,
	"seq" bigint NOT NULL,
	"link" "bytea" NOT NULL
);
--> statement-breakpoint
CREATE TABLE "consent_events" (
	"org_id" uuid NOT NULL,
	"seq" bigint NOT NULL,
	"id" uuid NOT NULL,
	"record_id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"purpose_id" uuid NOT NULL,
	"attribute_id" uuid NOT NULL,
	"old_value" text NOT NULL,
	"new_value" text NOT NULL,
	"old_days" integer NOT NULL,
	"new_days" integer NOT NULL,
	"occurred_at" timestamp with time zone NOT NULL,
	"actor" jsonb NOT NULL,
	"channel" jsonb NOT NULL,
	"request_id" text NOT NULL,
	"content_hash" "bytea" NOT NULL,
	"prev_link" "bytea" NOT NULL,
	"link" "bytea" NOT NULL,
	CONSTRAINT "consent_events_org_id_seq_pk" PRIMARY KEY("org_id","seq"),
	CONSTRAINT "consent_events_id_unique" UNIQUE("id")
);
--> statement-breakpoint
CREATE TABLE "consent_records" (
	"id" uuid PRIMARY KEY NOT NULL,
	"org_id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "attribute_consents" ADD CONSTRAINT "attribute_consents_record_id_consent_records_id_fk" FOREIGN KEY ("record_id") REFERENCES "public"."consent_records"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "attribute_consents" ADD CONSTRAINT "attribute_consents_purpose_id_purposes_id_fk" FOREIGN KEY ("purpose_id") REFERENCES "public"."purposes"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "attribute_consents" ADD CONSTRAINT "attribute_consents_attribute_id_data_attributes_id_fk" FOREIGN KEY ("attribute_id") REFERENCES "public"."data_attributes"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "consent_records" ADD CONSTRAINT "consent_records_org_id_organisations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organisations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "consent_records" ADD CONSTRAINT "consent_records_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "attribute_consents_consenting" ON "attribute_consents" USING btree ("purpose_id","attribute_id","user_id") WHERE value <> 'Disallow';--> statement-breakpoint
CREATE INDEX "attribute_consents_purpose_user" ON "attribute_consents" USING btree ("purpose_id","user_id") WHERE value <> 'Disallow';--> statement-breakpoint
CREATE INDEX "attribute_consents_disallowed" ON "attribute_consents" USING btree ("purpose_id","user_id") WHERE value = 'Disallow';--> statement-breakpoint
CREATE INDEX "attribute_consents_expiry" ON "attribute_consents" USING btree ("expires_at") WHERE value = 'AskMe' AND expires_at IS NOT NULL;--> statement-breakpoint
CREATE INDEX "consent_events_record" ON "consent_events" USING btree ("record_id","occurred_at");--> statement-breakpoint
CREATE UNIQUE INDEX "consent_records_org_user" ON "consent_records" USING btree ("org_id","user_id");--> statement-breakpoint
-- Every subscription made before consent records existed gets its record now.
INSERT INTO "consent_records" ("id", "org_id", "user_id", "created_at")
SELECT gen_random_uuid(), "org_id", "user_id", "created_at" FROM "subscriptions"
ON CONFLICT DO NOTHING;
