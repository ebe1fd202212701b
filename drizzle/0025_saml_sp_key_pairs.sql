-- SAML SP keys get a lifecycle of their own (staged, active, retired) instead of following the
-- ES256 signing keys, so that a new certificate is published before it signs
-- (docs/decisions/0026-saml-sp-key-rollover.md). The key pair of the active signing key stays the
-- active signing key; those of retired signing keys still in the JWKS stay published as retired.
CREATE TABLE "saml_sp_key_pairs" (
	"id" uuid PRIMARY KEY NOT NULL,
	"use" text NOT NULL,
	"certificate" text NOT NULL,
	"private_key_sealed" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"activated_at" timestamp with time zone,
	"retired_at" timestamp with time zone
);
--> statement-breakpoint
INSERT INTO "saml_sp_key_pairs" ("id", "use", "certificate", "private_key_sealed", "created_at", "activated_at", "retired_at")
SELECT gen_random_uuid(), 'signing', k."certificate", k."private_key_sealed", k."created_at", k."created_at", s."retired_at"
FROM "saml_sp_keys" k JOIN "signing_keys" s ON s."kid" = k."signing_kid"
WHERE s."retired_at" IS NULL OR s."expires_at" > now();--> statement-breakpoint
DROP TABLE "saml_sp_keys" CASCADE;--> statement-breakpoint
CREATE UNIQUE INDEX "saml_sp_key_pairs_staged" ON "saml_sp_key_pairs" USING btree ("use") WHERE activated_at IS NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "saml_sp_key_pairs_active" ON "saml_sp_key_pairs" USING btree ("use") WHERE activated_at IS NOT NULL AND retired_at IS NULL;