-- Relying parties (OIDC clients) of each organisation's OpenID provider (SPEC 4.1; docs/wallet.md "Relying
-- parties"; docs/decisions/0016-oidc-relying-parties.md). A confidential client's secret is kept only as
-- its SHA-256 hash; the CHECKs restate the API's limits so that no path can store more.
CREATE TABLE "oidc_clients" (
	"org_id" uuid NOT NULL,
	"client_id" text NOT NULL,
	"name" text NOT NULL,
	"redirect_uris" text[] NOT NULL,
	"post_logout_redirect_uris" text[] DEFAULT '{}'::text[] NOT NULL,
	"public" boolean NOT NULL,
	"secret_hash" "bytea",
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "oidc_clients_org_id_client_id_pk" PRIMARY KEY("org_id","client_id"),
	CONSTRAINT "oidc_clients_redirect_uris_count" CHECK (cardinality("oidc_clients"."redirect_uris") BETWEEN 1 AND 50),
	CONSTRAINT "oidc_clients_post_logout_count" CHECK (cardinality("oidc_clients"."post_logout_redirect_uris") <= 50),
	CONSTRAINT "oidc_clients_secret_iff_confidential" CHECK (("oidc_clients"."public") = ("oidc_clients"."secret_hash" IS NULL))
);
--> statement-breakpoint
ALTER TABLE "oidc_clients" ADD CONSTRAINT "oidc_clients_org_id_organisations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organisations"("id") ON DELETE cascade ON UPDATE no action;