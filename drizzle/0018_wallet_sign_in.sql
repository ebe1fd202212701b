CREATE TABLE "oidc_provider_records" (
	"org_id" uuid NOT NULL,
	"model" text NOT NULL,
	"id" text NOT NULL,
	"payload" jsonb NOT NULL,
	"grant_id" text,
	"uid" text,
	"user_code" text,
	"expires_at" timestamp with time zone NOT NULL,
	"consumed_at" timestamp with time zone,
	CONSTRAINT "oidc_provider_records_org_id_model_id_pk" PRIMARY KEY("org_id","model","id")
);
--> statement-breakpoint
CREATE TABLE "wallet_identities" (
	"org_id" uuid NOT NULL,
	"issuer" text NOT NULL,
	"vct" text NOT NULL,
	"subject" text NOT NULL,
	"user_id" uuid NOT NULL,
	"claims" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "wallet_identities_org_id_issuer_vct_subject_pk" PRIMARY KEY("org_id","issuer","vct","subject")
);
--> statement-breakpoint
CREATE TABLE "wallet_settings" (
	"org_id" uuid PRIMARY KEY NOT NULL,
	"profile" text NOT NULL,
	"verifier_certificate_chain" text[] NOT NULL,
	"verifier_key_sealed" text NOT NULL,
	"trusted_issuer_certificates" text[] NOT NULL,
	"dcql_query" jsonb NOT NULL,
	"claim_mapping" jsonb NOT NULL,
	"stable_claim" text NOT NULL,
	"same_device_only" boolean NOT NULL,
	"deep_link_scheme" text NOT NULL,
	"response_encryption" text[] NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "wallet_transactions" (
	"id" uuid PRIMARY KEY NOT NULL,
	"request_id" text NOT NULL,
	"org_id" uuid NOT NULL,
	"interaction_uid" text NOT NULL,
	"client_id" text NOT NULL,
	"request_payload" jsonb NOT NULL,
	"request_jwt" text,
	"vp_state" text NOT NULL,
	"enc_kid" text,
	"enc_key_sealed" text,
	"settings" jsonb NOT NULL,
	"status" text NOT NULL,
	"response_code_hash" "bytea",
	"result" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	CONSTRAINT "wallet_transactions_request_id_unique" UNIQUE("request_id"),
	CONSTRAINT "wallet_transactions_vp_state_unique" UNIQUE("vp_state"),
	CONSTRAINT "wallet_transactions_enc_kid_unique" UNIQUE("enc_kid")
);
--> statement-breakpoint
ALTER TABLE "oidc_provider_records" ADD CONSTRAINT "oidc_provider_records_org_id_organisations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organisations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "wallet_identities" ADD CONSTRAINT "wallet_identities_org_id_organisations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organisations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "wallet_identities" ADD CONSTRAINT "wallet_identities_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "wallet_settings" ADD CONSTRAINT "wallet_settings_org_id_organisations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organisations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "wallet_transactions" ADD CONSTRAINT "wallet_transactions_org_id_organisations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organisations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "oidc_provider_records_grant" ON "oidc_provider_records" USING btree ("org_id","grant_id");--> statement-breakpoint
CREATE INDEX "oidc_provider_records_uid" ON "oidc_provider_records" USING btree ("org_id","model","uid");--> statement-breakpoint
CREATE INDEX "oidc_provider_records_expires" ON "oidc_provider_records" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "wallet_identities_user" ON "wallet_identities" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "wallet_transactions_interaction" ON "wallet_transactions" USING btree ("org_id","interaction_uid");--> statement-breakpoint
CREATE INDEX "wallet_transactions_expires" ON "wallet_transactions" USING btree ("expires_at");