CREATE TABLE "app_redirect_uris" (
	"org_id" uuid NOT NULL,
	"uri" text NOT NULL,
	CONSTRAINT "app_redirect_uris_org_id_uri_pk" PRIMARY KEY("org_id","uri")
);
--> statement-breakpoint
CREATE TABLE "federated_identities" (
	"org_id" uuid NOT NULL,
	"issuer" text NOT NULL,
	"subject" text NOT NULL,
	"user_id" uuid NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "federated_identities_org_id_issuer_subject_pk" PRIMARY KEY("org_id","issuer","subject")
);
--> statement-breakpoint
CREATE TABLE "federation_codes" (
	"code_hash" "bytea" PRIMARY KEY NOT NULL,
	"org_id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"app_redirect_uri" text NOT NULL,
	"id_token_sealed" text,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "federation_sessions" (
	"family_id" uuid PRIMARY KEY NOT NULL,
	"org_id" uuid NOT NULL,
	"id_token_sealed" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "federation_states" (
	"state_hash" "bytea" PRIMARY KEY NOT NULL,
	"org_id" uuid NOT NULL,
	"secrets_sealed" text NOT NULL,
	"app_redirect_uri" text NOT NULL,
	"app_state" text,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "idp_configs" (
	"org_id" uuid PRIMARY KEY NOT NULL,
	"authorization_url" text NOT NULL,
	"token_url" text NOT NULL,
	"logout_url" text NOT NULL,
	"client_id" text NOT NULL,
	"client_secret_sealed" text NOT NULL,
	"jwks_url" text NOT NULL,
	"user_info_url" text NOT NULL,
	"validate_signature" boolean DEFAULT true NOT NULL,
	"disable_user_info" boolean DEFAULT false NOT NULL,
	"issuer" text NOT NULL,
	"default_scope" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "org_audit_log" (
	"id" uuid PRIMARY KEY NOT NULL,
	"org_id" uuid NOT NULL,
	"actor_user_id" uuid,
	"actor_api_key_id" uuid,
	"action" text NOT NULL,
	"detail" jsonb NOT NULL,
	"at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "app_redirect_uris" ADD CONSTRAINT "app_redirect_uris_org_id_organisations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organisations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "federated_identities" ADD CONSTRAINT "federated_identities_org_id_organisations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organisations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "federated_identities" ADD CONSTRAINT "federated_identities_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "federation_codes" ADD CONSTRAINT "federation_codes_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "federation_sessions" ADD CONSTRAINT "federation_sessions_family_id_token_families_id_fk" FOREIGN KEY ("family_id") REFERENCES "public"."token_families"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "idp_configs" ADD CONSTRAINT "idp_configs_org_id_organisations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organisations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "org_audit_log" ADD CONSTRAINT "org_audit_log_org_id_organisations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organisations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "federated_identities_user" ON "federated_identities" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "federation_codes_expires" ON "federation_codes" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "federation_states_expires" ON "federation_states" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "org_audit_log_org_id" ON "org_audit_log" USING btree ("org_id","id");