ALTER TABLE "federation_sessions" ADD COLUMN "user_id" uuid;--> statement-breakpoint
UPDATE "federation_sessions" SET "user_id" = "token_families"."user_id" FROM "token_families" WHERE "token_families"."id" = "federation_sessions"."family_id";--> statement-breakpoint
ALTER TABLE "saml_requests" ADD COLUMN "kind" text DEFAULT 'authn' NOT NULL;--> statement-breakpoint
CREATE INDEX "federation_sessions_user" ON "federation_sessions" USING btree ("org_id","user_id");
