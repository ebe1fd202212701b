CREATE TABLE "saml_assertions" (
	"org_id" uuid NOT NULL,
	"assertion_id" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	CONSTRAINT "saml_assertions_org_id_assertion_id_pk" PRIMARY KEY("org_id","assertion_id")
);
--> statement-breakpoint
CREATE TABLE "saml_configs" (
	"org_id" uuid PRIMARY KEY NOT NULL,
	"metadata_url" text NOT NULL,
	"entity_id" text NOT NULL,
	"sso_url" text NOT NULL,
	"slo_url" text NOT NULL,
	"signing_certificates" jsonb NOT NULL,
	"name_id_format" text NOT NULL,
	"attribute_mapping" jsonb NOT NULL,
	"sign_authn_requests" boolean DEFAULT true NOT NULL,
	"allow_unsolicited" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "saml_requests" (
	"request_id" text PRIMARY KEY NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "saml_sp_keys" (
	"signing_kid" text PRIMARY KEY NOT NULL,
	"certificate" text NOT NULL,
	"private_key_sealed" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "saml_configs" ADD CONSTRAINT "saml_configs_org_id_organisations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organisations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "saml_assertions_expires" ON "saml_assertions" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "saml_requests_expires" ON "saml_requests" USING btree ("expires_at");