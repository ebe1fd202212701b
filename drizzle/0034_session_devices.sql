ALTER TABLE "token_families" ADD COLUMN "user_agent" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "token_families" ADD COLUMN "ip_prefix" text DEFAULT '' NOT NULL;