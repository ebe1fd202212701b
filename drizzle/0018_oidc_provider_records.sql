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
ALTER TABLE "oidc_provider_records" ADD CONSTRAINT "oidc_provider_records_org_id_organisations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organisations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "oidc_provider_records_grant" ON "oidc_provider_records" USING btree ("org_id","grant_id");--> statement-breakpoint
CREATE INDEX "oidc_provider_records_uid" ON "oidc_provider_records" USING btree ("org_id","model","uid");--> statement-breakpoint
CREATE INDEX "oidc_provider_records_expires" ON "oidc_provider_records" USING btree ("expires_at");