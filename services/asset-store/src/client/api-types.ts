// Generated from the OpenAPI document (`pnpm --filter asset-store gen:client`, openapi-typescript):
// do not edit; change the server schemas and regenerate. test/client-types.test.ts checks it.

export interface paths {
    "/healthz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Health: 200 once the index and the storage answer */
        get: operations["health"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/metrics": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Prometheus metrics */
        get: operations["metrics"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/openapi.json": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** This document */
        get: operations["openapi"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/can/0/ingest": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Ingest a file */
        post: operations["ingestFile"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/can/0/ingest/data": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Ingest a JSON value */
        post: operations["ingestData"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/can/0/asset/{hash}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The asset hash: 64 hexadecimal characters, either case. */
                hash: string;
            };
            cookie?: never;
        };
        /**
         * Download the content (HEAD, Range and conditional requests supported)
         * @description ETag is the quoted hash, Last-Modified the ingest time. Preconditions follow RFC 9110 whatever the request Cache-Control says: If-Match, If-Unmodified-Since (412), If-None-Match, If-Modified-Since (304), If-Range. Every answer carries X-Content-Type-Options: nosniff and Content-Security-Policy: sandbox.
         */
        get: operations["getAsset"];
        put?: never;
        post?: never;
        /** Move to the trash (idempotent) */
        delete: operations["trashAsset"];
        options?: never;
        /** The download headers, without the body */
        head: operations["headAsset"];
        /** Replace tags and/or description */
        patch: operations["updateAsset"];
        trace?: never;
    };
    "/api/v1/can/0/asset/{hash}/meta": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The asset hash: 64 hexadecimal characters, either case. */
                hash: string;
            };
            cookie?: never;
        };
        /** The metadata record */
        get: operations["getAssetMeta"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/can/0/asset/{hash}/restore": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The asset hash: 64 hexadecimal characters, either case. */
                hash: string;
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Take out of the trash (idempotent) */
        post: operations["restoreAsset"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/can/0/list": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List assets by timestamp */
        get: operations["listAssets"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/can/0/search": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Search assets; every filter given must match */
        get: operations["searchAssets"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/can/0/search/sha256": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Which of many contents the store holds, by their plain SHA-256
         * @description One lookup for up to 1000 digests (either case; repeats answered once): per digest held, the newest asset holding it, among visible assets unless include_trashed or include_corrupted. The per-digest `GET /search?sha256=` stays.
         */
        post: operations["findAssetsBySha256"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/can/0/folders": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The subfolders of a folder (by human_path), each with its count of assets
         * @description Among assets neither trashed nor corrupted; at most 1000, by name. A subfolder’s count covers it and everything below it. Slashes at either end of `path` are ignored.
         */
        get: operations["listFolders"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/can/0/duplicates": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Contents held by more than one asset, grouped (the most copies first)
         * @description Among assets neither trashed nor corrupted, by plain content SHA-256; each group lists up to 50 of its assets, newest first.
         */
        get: operations["listDuplicates"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/can/0/changes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The change feed: events after a cursor, in commit order
         * @description Every change to the index is an event written in the same transaction. Without `after`, from the oldest event kept. `next` is the last event’s id, or the cursor given when there is none.
         */
        get: operations["listChanges"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/can/0/changes/stream": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The change feed live, as Server-Sent Events
         * @description `id:` the event’s id, `event:` its type, `data:` the event JSON. Resumes after `Last-Event-ID` (wins) or `?after=`; without either, from now. The first message has no data, only `id:`: the cursor the stream starts after, so a client that reconnects before any event resumes from there. A comment line every 15 s.
         */
        get: operations["streamChanges"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/can/0/asset/{hash}/thumb/{max_width}/{max_height}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A thumbnail fitting the box
         * @description Images: a JPEG fitting the box, aspect kept, never enlarged, EXIF orientation applied, transparency on white. Anything else (or an image that cannot be decoded): an SVG placeholder showing the extension.
         */
        get: operations["getThumbnail"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/can/0/uploads": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create a resumable upload (tus creation, optionally with its first bytes)
         * @description Upload-Metadata keys: filename, mime_type, human_file_name, human_readable_path, application, user, tags, description, checked like the POST /ingest form fields. An upload of 0 bytes, or one whose body holds every byte, becomes an asset at once.
         */
        post: operations["createUpload"];
        delete?: never;
        /** tus discovery: versions, extensions, Tus-Max-Size, Tus-Checksum-Algorithm */
        options: operations["uploadOptions"];
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/can/0/uploads/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Terminate an unfinished upload: its bytes are deleted */
        delete: operations["terminateUpload"];
        /** tus discovery, as on the collection */
        options: operations["uploadResourceOptions"];
        /** Where the upload stands; a finished one names its asset */
        head: operations["getUploadOffset"];
        /** Append bytes at Upload-Offset; the last byte makes the asset */
        patch: operations["appendToUpload"];
        trace?: never;
    };
    "/api/v1/can/0/admin/verify": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Scrub every asset now; answers when done */
        post: operations["verifyAssets"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/can/0/admin/rebuild": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Rebuild the index from the storage root
         * @description soft: upsert from each file (attributes, else filename and recomputed hash); rows of vanished files are flagged corrupted. hard: empty the index first. A soft rebuild with more per-file errors than rebuild_error_threshold escalates to hard.
         */
        post: operations["rebuildIndex"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/can/0/admin/asset/{hash}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Purge an asset for good: file, thumbnails, attributes and row */
        delete: operations["purgeAsset"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/can/0/admin/jobs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The 50 most recent jobs, newest first */
        get: operations["listJobs"];
        put?: never;
        /** Start a verify, rebuild or backfill job; answers at once with the job */
        post: operations["startJob"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/can/0/admin/jobs/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One job, with live progress while it runs */
        get: operations["getJob"];
        put?: never;
        post?: never;
        /** Cancel a running job; answers once it has stopped (an ended job as it is) */
        delete: operations["cancelJob"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/can/0/admin/webhooks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The webhooks (without their secrets) */
        get: operations["listWebhooks"];
        put?: never;
        /**
         * Subscribe a URL to the change feed (Standard Webhooks)
         * @description Each later event of the given types (default all) is POSTed, signed per the Standard Webhooks specification with the secret answered here once, retried with exponential backoff for webhook_retry_hours. A URL whose host resolves to a private, loopback or link-local address is refused unless webhook_allow_private.
         */
        post: operations["createWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/can/0/admin/webhooks/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Delete a webhook, its queue and its log */
        delete: operations["deleteWebhook"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/can/0/admin/webhooks/{id}/deliveries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The webhook’s recent delivery attempts, newest first */
        get: operations["listWebhookDeliveries"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The service root: a permanent redirect to the web console */
        get: operations["root"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/console/": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The web console (its page; every other path under /console/ is its file or route) */
        get: operations["console"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/favicon.ico": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The console's icon (a 32 px PNG inside an ICO file) */
        get: operations["favicon"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/docs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** This API reference, rendered in the browser from /openapi.json */
        get: operations["apiDocs"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        ErrorEnvelope: {
            /** @constant */
            status: "error";
            error: string;
        };
        AssetRecord: {
            /** @description SHA-256(timestamp ‖ content), lowercase hex. */
            hash: string;
            /** @description MIME type of the stored content. */
            mime_type: string;
            /** @description Application that produced the asset. */
            application?: string;
            /** @description User or agent identity. */
            user?: string;
            /** @description Tags, normalised; empty when none. */
            tags: string[];
            /** @description Human-readable description. */
            description?: string;
            /** @description Logical file name (`human_file_name` at ingest). */
            human_filename?: string;
            /** @description Logical folder path (`human_readable_path` at ingest). */
            human_path?: string;
            /** @description Ingest time, Unix epoch milliseconds. */
            timestamp: number;
            /** @description In the trash (soft-deleted). */
            is_trashed: boolean;
            /** @description The content no longer matches the hash, or the file is gone (verifier). */
            is_corrupted: boolean;
            /** @description Size of the content in bytes. */
            size: number;
            /** @description Image width in pixels, after EXIF orientation; null for anything else. */
            width: number | null;
            /** @description Image height in pixels, after EXIF orientation; null for anything else. */
            height: number | null;
            /** @description When the picture was taken (EXIF `DateTimeOriginal`, read as UTC unless `OffsetTimeOriginal` gives the zone), Unix epoch milliseconds; null when unknown. */
            taken_at: number | null;
        };
        IngestResult: {
            timestamp: number;
            hash: string;
            /** @description Physical filename, without folders. */
            filename: string;
        };
        ContentLookup: {
            /** @description One per distinct digest held, in the order asked: its newest asset. */
            items: {
                sha256: string;
                hash: string;
                timestamp: number;
            }[];
            /** @description The distinct digests not held, lowercase, in the order asked. */
            missing: string[];
        };
        AssetPage: {
            items: components["schemas"]["AssetRecord"][];
            pagination: {
                limit: number;
                offset: number;
                total: number;
            };
        };
        FolderListing: {
            /** @description The folder asked, without slashes at its ends */
            path: string;
            folders: {
                name: string;
                /** @description For `path=` of /search and /folders */
                path: string;
                count: number;
            }[];
        };
        DuplicatePage: {
            groups: {
                sha256: string;
                count: number;
                items: components["schemas"]["AssetRecord"][];
            }[];
            pagination: {
                limit: number;
                offset: number;
                total: number;
            };
        };
        ChangeEvent: {
            /** @description The event’s cursor (opaque). */
            id: string;
            /** @enum {string} */
            type: "asset.created" | "asset.updated" | "asset.trashed" | "asset.restored" | "asset.corrupted" | "asset.repaired" | "asset.purged";
            hash: string;
            /** @description When, epoch ms. */
            at: number;
            /** @description The record after the change; null for asset.purged. */
            data: components["schemas"]["AssetRecord"] | null;
        };
        ChangePage: {
            events: components["schemas"]["ChangeEvent"][];
            /** @description Where the next page starts. */
            next: string;
        };
        VerifyReport: {
            checked: number;
            corrupted: number;
            missing: number;
            duration_ms: number;
        };
        RebuildReport: {
            /**
             * @description What finally ran
             * @enum {string}
             */
            mode: "soft" | "hard";
            scanned: number;
            indexed: number;
            errors: number;
        };
        Job: {
            /** Format: uuid */
            id: string;
            /** @enum {string} */
            kind: "verify" | "rebuild" | "backfill";
            /** @enum {string} */
            status: "running" | "done" | "failed" | "cancelled";
            /** @description Epoch milliseconds */
            started_at: number;
            /** @description Epoch milliseconds; null while running */
            finished_at: number | null;
            /** @description Files to do; null until counted */
            total: number | null;
            /** @description Files done */
            done: number;
            /** @description Bytes to read (verify); null for rebuild */
            bytes_total: number | null;
            bytes_done: number;
            /** @description Files per second since the start */
            rate: number | null;
            /** @description Bytes per second since the start (verify) */
            bytes_rate: number | null;
            /** @description Seconds left at the rate so far; null unless running */
            eta_s: number | null;
            /** @description Once ended: what POST /admin/verify or /admin/rebuild would answer (the counts so far when cancelled); null before */
            result: components["schemas"]["VerifyReport"] | components["schemas"]["RebuildReport"] | components["schemas"]["BackfillReport"] | null;
            /** @description Why the job failed */
            error: string | null;
        };
        BackfillReport: {
            /** @description Images without their facts, probed */
            probed: number;
            /** @description Images read: width and height now known */
            images: number;
            /** @description Images sharp could not read (facts stay null) */
            unreadable: number;
            /** @description Images left for a later run (file unreadable) */
            errors: number;
        };
        Webhook: {
            /** Format: uuid */
            id: string;
            url: string;
            /** @description The event types delivered; null: every type. */
            types: ("asset.created" | "asset.updated" | "asset.trashed" | "asset.restored" | "asset.corrupted" | "asset.repaired" | "asset.purged")[] | null;
            /** @description Epoch ms. */
            created_at: number;
        };
        WebhookCreated: {
            /** Format: uuid */
            id: string;
            url: string;
            /** @description The event types delivered; null: every type. */
            types: ("asset.created" | "asset.updated" | "asset.trashed" | "asset.restored" | "asset.corrupted" | "asset.repaired" | "asset.purged")[] | null;
            /** @description Epoch ms. */
            created_at: number;
            /** @description `whsec_` and the base64 of 32 random bytes: the signing key. */
            secret: string;
        };
        WebhookDelivery: {
            event_id: string;
            /** @description The status answered, if any. */
            status: number | null;
            /** @description Why it failed; null when delivered. */
            error: string | null;
            at: number;
            duration_ms: number;
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    health: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Serving */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "success";
                        data: {
                            /** @constant */
                            status: "ok";
                            version: string;
                        };
                    };
                };
            };
            /** @description Another method on this path (with `Allow`) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Unexpected failure, logged; no detail in the body */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The index or the storage (S3) is unreachable, or the start waits for S3 */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    metrics: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Text exposition format */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": unknown;
                };
            };
            /** @description Another method on this path (with `Allow`) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Unexpected failure, logged; no detail in the body */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    openapi: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OpenAPI 3.1 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": Record<string, never>;
                };
            };
            /** @description Another method on this path (with `Allow`) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Unexpected failure, logged; no detail in the body */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    ingestFile: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "multipart/form-data": {
                    /** Format: binary */
                    file: string;
                    /** @description Overrides the detected type (and the file extension). Empty means absent. */
                    mime_type?: string;
                    /** @description Logical file name. */
                    human_file_name?: string;
                    /** @description Logical folder path. */
                    human_readable_path?: string;
                    /** @description Producing application. */
                    application?: string;
                    /** @description User or agent identity. */
                    user?: string;
                    /** @description Description. */
                    description?: string;
                    /** @description Comma-separated; trimmed, empty ones and duplicates dropped; at most 64 tags of 1-64 characters. */
                    tags?: string;
                    /** @description Expected plain SHA-256 of the file (64 hex); another content: 400, nothing kept. Empty means absent. */
                    sha256?: string;
                };
            };
        };
        responses: {
            /** @description Stored */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "success";
                        data: components["schemas"]["IngestResult"];
                    };
                };
            };
            /** @description Invalid input (named in the message) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description api_token is set and the bearer token is not it (with `WWW-Authenticate: Bearer`) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Another method on this path (with `Allow`) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Content over the limit; nothing kept */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description A Content-Encoding other than identity */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Unexpected failure; nothing kept */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The index database, or S3 when assets are kept there, does not answer now, or another instance does not give the timestamps back in time (with `Retry-After`) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The storage disk is full; nothing kept, the same request may succeed later */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    ingestData: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Any JSON value; stored as JSON.stringify(data, null, 2), numbers with the digits sent. */
                    data: unknown;
                    /** @description Overrides the detected type (and the file extension). Empty means absent. */
                    mime_type?: string;
                    /** @description Logical file name. */
                    human_file_name?: string;
                    /** @description Logical folder path. */
                    human_readable_path?: string;
                    /** @description Producing application. */
                    application?: string;
                    /** @description User or agent identity. */
                    user?: string;
                    /** @description Description. */
                    description?: string;
                    /** @description Comma-separated; trimmed, empty ones and duplicates dropped; at most 64 tags of 1-64 characters. */
                    tags?: string;
                };
            };
        };
        responses: {
            /** @description Stored */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "success";
                        data: components["schemas"]["IngestResult"];
                    };
                };
            };
            /** @description Invalid input (named in the message) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description api_token is set and the bearer token is not it (with `WWW-Authenticate: Bearer`) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Another method on this path (with `Allow`) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Body over max_json_bytes; nothing stored or changed */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Body in an encoding or charset that cannot be read */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Unexpected failure; nothing kept */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The index database, or S3 when assets are kept there, does not answer now, or another instance does not give the timestamps back in time (with `Retry-After`) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The storage disk is full; nothing kept, the same request may succeed later */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    getAsset: {
        parameters: {
            query?: {
                /** @description `inline` answers `Content-Disposition: inline` so that a browser shows the content in a frame (PDFs in its own viewer), still sandboxed; on S3 storage such a GET is served, not redirected, as S3 cannot add the sandbox. */
                disposition?: "attachment" | "inline";
            };
            header?: never;
            path: {
                /** @description The asset hash: 64 hexadecimal characters, either case. */
                hash: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The bytes, with Content-Type, Content-Disposition, ETag */
            200: {
                headers: {
                    /** @description The quoted hash (strong). */
                    ETag?: string;
                    /** @description The ingest time. */
                    "Last-Modified"?: string;
                    /** @description RFC 9530: sha-256=:<base64>: of the whole content; absent until known for assets stored before digests were kept. */
                    "Repr-Digest"?: string;
                    "X-Content-Type-Options"?: "nosniff";
                    "Content-Security-Policy"?: "sandbox";
                    [name: string]: unknown;
                };
                content: {
                    "*/*": string;
                };
            };
            /** @description The requested range */
            206: {
                headers: {
                    /** @description The quoted hash (strong). */
                    ETag?: string;
                    /** @description The ingest time. */
                    "Last-Modified"?: string;
                    /** @description RFC 9530: sha-256=:<base64>: of the whole content; absent until known for assets stored before digests were kept. */
                    "Repr-Digest"?: string;
                    "X-Content-Type-Options"?: "nosniff";
                    "Content-Security-Policy"?: "sandbox";
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Not modified (If-None-Match or If-Modified-Since) */
            304: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Malformed hash, or a disposition other than attachment or inline */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description api_token is set and the bearer token is not it (with `WWW-Authenticate: Bearer`) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Unknown hash or container */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Another method on this path (with `Allow`) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description If-Match or If-Unmodified-Since not met */
            412: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Range not satisfiable */
            416: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The asset is corrupted or its file is missing */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The index database, or S3 when assets are kept there, does not answer now, or another instance does not give the timestamps back in time (with `Retry-After`) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    trashAsset: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The asset hash: 64 hexadecimal characters, either case. */
                hash: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Trashed */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "success";
                        /** @constant */
                        data: "trashed";
                    };
                };
            };
            /** @description Malformed hash */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description api_token is set and the bearer token is not it (with `WWW-Authenticate: Bearer`) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Unknown hash or container */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Another method on this path (with `Allow`) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Unexpected failure, logged; no detail in the body */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The index database, or S3 when assets are kept there, does not answer now, or another instance does not give the timestamps back in time (with `Retry-After`) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The storage or the index is out of space; nothing changed, a retry may succeed later */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    headAsset: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The asset hash: 64 hexadecimal characters, either case. */
                hash: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Content-Type, Content-Length, Content-Disposition, ETag */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The headers of the requested range */
            206: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Not modified (If-None-Match or If-Modified-Since) */
            304: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Malformed hash */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description api_token is set and the bearer token is not it (with `WWW-Authenticate: Bearer`) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Unknown hash or container */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Another method on this path (with `Allow`) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description If-Match or If-Unmodified-Since not met */
            412: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Range not satisfiable */
            416: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The asset is corrupted or its file is missing */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The index database, or S3 when assets are kept there, does not answer now, or another instance does not give the timestamps back in time (with `Retry-After`) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    updateAsset: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The asset hash: 64 hexadecimal characters, either case. */
                hash: string;
            };
            cookie?: never;
        };
        /** @description An empty body is `{}`: nothing changes. */
        requestBody?: {
            content: {
                "application/json": {
                    tags?: string[];
                    description?: string;
                };
            };
        };
        responses: {
            /** @description Updated */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "success";
                        /** @constant */
                        data: "updated";
                    };
                };
            };
            /** @description Malformed hash */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description api_token is set and the bearer token is not it (with `WWW-Authenticate: Bearer`) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Unknown hash or container */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Another method on this path (with `Allow`) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Body over max_json_bytes; nothing stored or changed */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Body in an encoding or charset that cannot be read */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Unexpected failure, logged; no detail in the body */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The index database, or S3 when assets are kept there, does not answer now, or another instance does not give the timestamps back in time (with `Retry-After`) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The storage or the index is out of space; nothing changed, a retry may succeed later */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    getAssetMeta: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The asset hash: 64 hexadecimal characters, either case. */
                hash: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The record */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "success";
                        data: components["schemas"]["AssetRecord"];
                    };
                };
            };
            /** @description Malformed hash */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description api_token is set and the bearer token is not it (with `WWW-Authenticate: Bearer`) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Unknown hash or container */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Another method on this path (with `Allow`) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Unexpected failure, logged; no detail in the body */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The index database, or S3 when assets are kept there, does not answer now, or another instance does not give the timestamps back in time (with `Retry-After`) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    restoreAsset: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The asset hash: 64 hexadecimal characters, either case. */
                hash: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Restored */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "success";
                        /** @constant */
                        data: "restored";
                    };
                };
            };
            /** @description Malformed hash */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description api_token is set and the bearer token is not it (with `WWW-Authenticate: Bearer`) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Unknown hash or container */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Another method on this path (with `Allow`) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Unexpected failure, logged; no detail in the body */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The index database, or S3 when assets are kept there, does not answer now, or another instance does not give the timestamps back in time (with `Retry-After`) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The storage or the index is out of space; nothing changed, a retry may succeed later */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    listAssets: {
        parameters: {
            query?: {
                /** @description Page size. */
                limit?: number;
                /** @description Matches skipped (after offset_time narrowed them). */
                offset?: number;
                /** @description Epoch ms cursor: only items strictly before it (desc) or after it (asc). */
                offset_time?: number;
                /** @description By timestamp. */
                order?: "asc" | "desc";
                /** @description Only assets of this application (exact). */
                application?: string;
                /** @description Include trashed assets. */
                include_trashed?: "true" | "false" | "1" | "0";
                /** @description Include corrupted assets. */
                include_corrupted?: "true" | "false" | "1" | "0";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page and the exact number of matches */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "success";
                        data: components["schemas"]["AssetPage"];
                    };
                };
            };
            /** @description A parameter is invalid (named in the message) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description api_token is set and the bearer token is not it (with `WWW-Authenticate: Bearer`) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Another method on this path (with `Allow`) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Unexpected failure, logged; no detail in the body */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The index database, or S3 when assets are kept there, does not answer now, or another instance does not give the timestamps back in time (with `Retry-After`) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    searchAssets: {
        parameters: {
            query?: {
                /** @description Exact hash or a prefix of it, either case. */
                hash?: string;
                /** @description Plain SHA-256 of the content (no timestamp), either case. */
                sha256?: string;
                /** @description Epoch ms, inclusive lower bound. */
                start_time?: number;
                /** @description Epoch ms, inclusive upper bound. */
                end_time?: number;
                /** @description Comma-separated; the asset must carry every one. */
                tags?: string;
                /** @description Exact MIME type, or a whole family with `/*` (`image/*`). */
                mime_type?: string;
                /** @description Exact user. */
                user?: string;
                /** @description Free text: every whitespace-separated term must occur, case-insensitively, in `human_filename`, `human_path`, `description` or a tag (substring match, any Unicode; at most 16 terms). Empty: no filter. */
                q?: string;
                /** @description A folder: `human_path` equal to it or below it (`photos` matches `photos` and `photos/2026`, not `photos-old`). Slashes at either end are ignored. */
                path?: string;
                /** @description What `order` sorts by: `timestamp` (ingest time, unique) or `taken`: the date taken (`taken_at`), else the ingest time, ties by timestamp (a timeline). Under `taken`, `offset_time` is a value of that key: strictly before it (desc) or after it (asc), so assets sharing the key at the cursor are all excluded; to page exactly, send the last item's key plus 1 (desc; minus 1 asc) with `offset` = how many items of that key the pages so far held. `start_time` and `end_time` stay on the ingest time. */
                sort?: "timestamp" | "taken";
                /** @description Page size. */
                limit?: number;
                /** @description Matches skipped (after offset_time narrowed them). */
                offset?: number;
                /** @description Epoch ms cursor: only items strictly before it (desc) or after it (asc). */
                offset_time?: number;
                /** @description By `sort`. */
                order?: "asc" | "desc";
                /** @description Only assets of this application (exact). */
                application?: string;
                /** @description Include trashed assets. */
                include_trashed?: "true" | "false" | "1" | "0";
                /** @description Include corrupted assets. */
                include_corrupted?: "true" | "false" | "1" | "0";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page and the exact number of matches */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "success";
                        data: components["schemas"]["AssetPage"];
                    };
                };
            };
            /** @description A parameter is invalid (named in the message) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description api_token is set and the bearer token is not it (with `WWW-Authenticate: Bearer`) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Another method on this path (with `Allow`) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Unexpected failure, logged; no detail in the body */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The index database, or S3 when assets are kept there, does not answer now, or another instance does not give the timestamps back in time (with `Retry-After`) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    findAssetsBySha256: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    sha256: string[];
                    /** @default false */
                    include_trashed?: boolean;
                    /** @default false */
                    include_corrupted?: boolean;
                };
            };
        };
        responses: {
            /** @description The digests held and those not held */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "success";
                        data: components["schemas"]["ContentLookup"];
                    };
                };
            };
            /** @description The body is not an object with 1 to 1000 digests (the field is named) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description api_token is set and the bearer token is not it (with `WWW-Authenticate: Bearer`) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Another method on this path (with `Allow`) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Body over 256 KiB */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Body in an encoding or charset that cannot be read */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Unexpected failure, logged; no detail in the body */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The index database, or S3 when assets are kept there, does not answer now, or another instance does not give the timestamps back in time (with `Retry-After`) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The storage or the index is out of space; nothing changed, a retry may succeed later */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    listFolders: {
        parameters: {
            query?: {
                /** @description The folder; absent or empty: the top level. */
                path?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The subfolders */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "success";
                        data: components["schemas"]["FolderListing"];
                    };
                };
            };
            /** @description A bad parameter (named) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description api_token is set and the bearer token is not it (with `WWW-Authenticate: Bearer`) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Another method on this path (with `Allow`) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Unexpected failure, logged; no detail in the body */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The index database, or S3 when assets are kept there, does not answer now, or another instance does not give the timestamps back in time (with `Retry-After`) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    listDuplicates: {
        parameters: {
            query?: {
                /** @description Groups per page. */
                limit?: number;
                /** @description Groups skipped. */
                offset?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of groups */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "success";
                        data: components["schemas"]["DuplicatePage"];
                    };
                };
            };
            /** @description A bad parameter (named) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description api_token is set and the bearer token is not it (with `WWW-Authenticate: Bearer`) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Another method on this path (with `Allow`) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Unexpected failure, logged; no detail in the body */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The index database, or S3 when assets are kept there, does not answer now, or another instance does not give the timestamps back in time (with `Retry-After`) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    listChanges: {
        parameters: {
            query?: {
                /** @description An event id (cursor) from this feed; only later events. */
                after?: string;
                /** @description Events per page. */
                limit?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page of events */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "success";
                        data: components["schemas"]["ChangePage"];
                    };
                };
            };
            /** @description A parameter is invalid (named in the message) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description api_token is set and the bearer token is not it (with `WWW-Authenticate: Bearer`) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Another method on this path (with `Allow`) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The cursor is older than changes_retention_days: events after it are no longer kept */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Unexpected failure, logged; no detail in the body */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The index database, or S3 when assets are kept there, does not answer now, or another instance does not give the timestamps back in time (with `Retry-After`) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    streamChanges: {
        parameters: {
            query?: {
                /** @description Resume after this event id. */
                after?: string;
            };
            header?: {
                /** @description Resume after this event id (what an EventSource sends on reconnecting). */
                "Last-Event-ID"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The stream (never ends on its own) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/event-stream": string;
                };
            };
            /** @description The cursor is not one this feed gave */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description api_token is set and the bearer token is not it (with `WWW-Authenticate: Bearer`) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Another method on this path (with `Allow`) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The cursor is older than changes_retention_days: events after it are no longer kept */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Unexpected failure, logged; no detail in the body */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The index database, or S3 when assets are kept there, does not answer now, or another instance does not give the timestamps back in time (with `Retry-After`) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    getThumbnail: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                hash: string;
                /** @description Box side in pixels. */
                max_width: number;
                /** @description Box side in pixels. */
                max_height: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The thumbnail */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "image/jpeg": string;
                    "image/svg+xml": string;
                };
            };
            /** @description Not modified (If-None-Match with the strong ETag) */
            304: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Malformed hash or box side */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description api_token is set and the bearer token is not it (with `WWW-Authenticate: Bearer`) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Unknown hash */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Another method on this path (with `Allow`) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The asset is corrupted or its file is missing */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The index database, or S3 when assets are kept there, does not answer now, or another instance does not give the timestamps back in time (with `Retry-After`) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    createUpload: {
        parameters: {
            query?: never;
            header: {
                "Tus-Resumable": "1.0.0";
                "Upload-Length": number;
                "Upload-Metadata"?: string;
                /** @description tus checksum extension: `sha256 <base64 of the body`s SHA-256>`. */
                "Upload-Checksum"?: string;
            };
            path?: never;
            cookie?: never;
        };
        /** @description The first bytes (creation-with-upload). A body of any other type is ignored: the upload is created empty. */
        requestBody?: {
            content: {
                "application/offset+octet-stream": string;
            };
        };
        responses: {
            /** @description Created; Location names it */
            201: {
                headers: {
                    /** @description /api/v1/can/0/uploads/{id} */
                    Location?: string;
                    /** @description Bytes received (creation-with-upload) */
                    "Upload-Offset"?: number;
                    /** @description When an unfinished upload is deleted */
                    "Upload-Expires"?: string;
                    /** @description Once the last byte arrived: the asset hash. */
                    "Asset-Hash"?: string;
                    /** @description Once the last byte arrived: the asset timestamp (epoch ms). */
                    "Asset-Timestamp"?: number;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Bad tus headers, or Upload-Metadata a form field would be refused for (named) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description api_token is set and the bearer token is not it (with `WWW-Authenticate: Bearer`) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Another method on this path (with `Allow`) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Tus-Resumable missing */
            412: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Upload-Length over max_upload_bytes */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description A body that is not application/offset+octet-stream */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Upload-Checksum does not match the body; the bytes were not kept */
            460: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Unexpected failure, logged; no detail in the body */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The index is unavailable while the upload became an asset; a PATCH of no bytes at the end offset tries again */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The storage disk is full */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    uploadOptions: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description What the server supports */
            204: {
                headers: {
                    /** @description 1.0.0 */
                    "Tus-Version"?: string;
                    /** @description creation,creation-with-upload,termination,expiration,checksum */
                    "Tus-Extension"?: string;
                    /** @description max_upload_bytes */
                    "Tus-Max-Size"?: number;
                    /** @description sha256 */
                    "Tus-Checksum-Algorithm"?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description api_token is set and the bearer token is not it (with `WWW-Authenticate: Bearer`) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Another method on this path (with `Allow`) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Unexpected failure, logged; no detail in the body */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The index database, or S3 when assets are kept there, does not answer now, or another instance does not give the timestamps back in time (with `Retry-After`) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The storage or the index is out of space; nothing changed, a retry may succeed later */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    terminateUpload: {
        parameters: {
            query?: never;
            header: {
                "Tus-Resumable": "1.0.0";
            };
            path: {
                /** @description The upload id from the creation answer`s Location. */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Bad tus headers, or the upload is finished (an asset now) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description api_token is set and the bearer token is not it (with `WWW-Authenticate: Bearer`) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description No such upload */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Another method on this path (with `Allow`) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Tus-Resumable missing */
            412: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Another request is writing this upload (waited 1 s); try again shortly */
            423: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Unexpected failure, logged; no detail in the body */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The index database, or S3 when assets are kept there, does not answer now, or another instance does not give the timestamps back in time (with `Retry-After`) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The storage or the index is out of space; nothing changed, a retry may succeed later */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    uploadResourceOptions: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The upload id from the creation answer`s Location. */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description What the server supports */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description api_token is set and the bearer token is not it (with `WWW-Authenticate: Bearer`) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description An id this service never handed out */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Another method on this path (with `Allow`) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Unexpected failure, logged; no detail in the body */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The index database, or S3 when assets are kept there, does not answer now, or another instance does not give the timestamps back in time (with `Retry-After`) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The storage or the index is out of space; nothing changed, a retry may succeed later */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    getUploadOffset: {
        parameters: {
            query?: never;
            header: {
                "Tus-Resumable": "1.0.0";
            };
            path: {
                /** @description The upload id from the creation answer`s Location. */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Offset and length */
            200: {
                headers: {
                    /** @description Bytes received */
                    "Upload-Offset"?: number;
                    /** @description Bytes announced */
                    "Upload-Length"?: number;
                    /** @description As sent */
                    "Upload-Metadata"?: string;
                    /** @description Once the last byte arrived: the asset hash. */
                    "Asset-Hash"?: string;
                    /** @description Once the last byte arrived: the asset timestamp (epoch ms). */
                    "Asset-Timestamp"?: number;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Bad tus headers, or Upload-Metadata a form field would be refused for (named) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description api_token is set and the bearer token is not it (with `WWW-Authenticate: Bearer`) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description No such upload */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Another method on this path (with `Allow`) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Expired */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Tus-Resumable missing */
            412: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Unexpected failure, logged; no detail in the body */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The index database, or S3 when assets are kept there, does not answer now, or another instance does not give the timestamps back in time (with `Retry-After`) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    appendToUpload: {
        parameters: {
            query?: never;
            header: {
                "Tus-Resumable": "1.0.0";
                "Upload-Offset": number;
                /** @description tus checksum extension: `sha256 <base64 of the body`s SHA-256>`. */
                "Upload-Checksum"?: string;
            };
            path: {
                /** @description The upload id from the creation answer`s Location. */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/offset+octet-stream": string;
            };
        };
        responses: {
            /** @description Stored */
            204: {
                headers: {
                    /** @description The new offset */
                    "Upload-Offset"?: number;
                    /** @description When the unfinished upload is deleted */
                    "Upload-Expires"?: string;
                    /** @description Once the last byte arrived: the asset hash. */
                    "Asset-Hash"?: string;
                    /** @description Once the last byte arrived: the asset timestamp (epoch ms). */
                    "Asset-Timestamp"?: number;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Bad tus headers, or Upload-Metadata a form field would be refused for (named) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description api_token is set and the bearer token is not it (with `WWW-Authenticate: Bearer`) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Upload-Offset or Content-Type missing */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description No such upload */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Another method on this path (with `Allow`) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Upload-Offset is not the upload`s offset */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Expired */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Tus-Resumable missing */
            412: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description More bytes than Upload-Length */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Another request is writing this upload (waited 1 s); try again shortly */
            423: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Upload-Checksum does not match the body; the offset stays */
            460: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Unexpected failure, logged; no detail in the body */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The index is unavailable while the upload became an asset; a PATCH of no bytes at the end offset tries again */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The storage disk is full */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    verifyAssets: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Scrub counts (corrupted: content mismatch; missing: file gone) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "success";
                        data: components["schemas"]["VerifyReport"];
                    };
                };
            };
            /** @description Missing or wrong bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description No admin_token configured */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Another method on this path (with `Allow`) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Unexpected failure, logged; no detail in the body */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The index database, or S3 when assets are kept there, does not answer now, or another instance does not give the timestamps back in time (with `Retry-After`) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The storage or the index is out of space; nothing changed, a retry may succeed later */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    rebuildIndex: {
        parameters: {
            query?: {
                mode?: "soft" | "hard";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description What ran and the counts */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "success";
                        data: components["schemas"]["RebuildReport"];
                    };
                };
            };
            /** @description Invalid mode */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Missing or wrong bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description No admin_token configured */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Another method on this path (with `Allow`) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Unexpected failure, logged; no detail in the body */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The index database, or S3 when assets are kept there, does not answer now, or another instance does not give the timestamps back in time (with `Retry-After`) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The storage or the index is out of space; nothing changed, a retry may succeed later */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    purgeAsset: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                hash: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Purged */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "success";
                        /** @constant */
                        data: "purged";
                    };
                };
            };
            /** @description Malformed hash */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Missing or wrong bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description No admin_token configured */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Unknown hash */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Another method on this path (with `Allow`) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Unexpected failure, logged; no detail in the body */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The index database, or S3 when assets are kept there, does not answer now, or another instance does not give the timestamps back in time (with `Retry-After`) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The storage or the index is out of space; nothing changed, a retry may succeed later */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    listJobs: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Jobs */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "success";
                        data: components["schemas"]["Job"][];
                    };
                };
            };
            /** @description Missing or wrong bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description No admin_token configured */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Another method on this path (with `Allow`) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Unexpected failure, logged; no detail in the body */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The index database, or S3 when assets are kept there, does not answer now, or another instance does not give the timestamps back in time (with `Retry-After`) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    startJob: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @constant */
                    kind: "verify";
                } | {
                    /** @constant */
                    kind: "rebuild";
                    /**
                     * @default soft
                     * @enum {string}
                     */
                    mode?: "soft" | "hard";
                } | {
                    /** @constant */
                    kind: "backfill";
                };
            };
        };
        responses: {
            /** @description The job, running */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "success";
                        data: components["schemas"]["Job"];
                    };
                };
            };
            /** @description Invalid body (the field is named) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Missing or wrong bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description No admin_token configured */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Another method on this path (with `Allow`) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description A job of this kind is already running */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Body over max_json_bytes */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description A body charset other than UTF-8 */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Unexpected failure, logged; no detail in the body */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The service is stopping */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The storage or the index is out of space; nothing changed, a retry may succeed later */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    getJob: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The job */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "success";
                        data: components["schemas"]["Job"];
                    };
                };
            };
            /** @description Malformed id */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Missing or wrong bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description No admin_token configured */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Unknown job */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Another method on this path (with `Allow`) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Unexpected failure, logged; no detail in the body */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The index database, or S3 when assets are kept there, does not answer now, or another instance does not give the timestamps back in time (with `Retry-After`) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    cancelJob: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The job, cancelled or as it ended */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "success";
                        data: components["schemas"]["Job"];
                    };
                };
            };
            /** @description Malformed id */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Missing or wrong bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description No admin_token configured */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Unknown job */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Another method on this path (with `Allow`) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Unexpected failure, logged; no detail in the body */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The index database, or S3 when assets are kept there, does not answer now, or another instance does not give the timestamps back in time (with `Retry-After`) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The storage or the index is out of space; nothing changed, a retry may succeed later */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    listWebhooks: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Every webhook, oldest first */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "success";
                        data: components["schemas"]["Webhook"][];
                    };
                };
            };
            /** @description Missing or wrong bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description No admin_token configured */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Another method on this path (with `Allow`) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Unexpected failure, logged; no detail in the body */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The index database, or S3 when assets are kept there, does not answer now, or another instance does not give the timestamps back in time (with `Retry-After`) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    createWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    url: string;
                    types?: ("asset.created" | "asset.updated" | "asset.trashed" | "asset.restored" | "asset.corrupted" | "asset.repaired" | "asset.purged")[];
                };
            };
        };
        responses: {
            /** @description The webhook, with its secret */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "success";
                        data: components["schemas"]["WebhookCreated"];
                    };
                };
            };
            /** @description A bad field (named), or a private target */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Missing or wrong bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description No admin_token configured */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Another method on this path (with `Allow`) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Body over 16 KiB */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Body in an encoding or charset that cannot be read */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Unexpected failure, logged; no detail in the body */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The index database, or S3 when assets are kept there, does not answer now, or another instance does not give the timestamps back in time (with `Retry-After`) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The storage or the index is out of space; nothing changed, a retry may succeed later */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    deleteWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The webhook id. */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "success";
                        /** @constant */
                        data: "deleted";
                    };
                };
            };
            /** @description The id is not a webhook id */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Missing or wrong bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description No admin_token configured */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description No such webhook */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Another method on this path (with `Allow`) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Unexpected failure, logged; no detail in the body */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The index database, or S3 when assets are kept there, does not answer now, or another instance does not give the timestamps back in time (with `Retry-After`) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The storage or the index is out of space; nothing changed, a retry may succeed later */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    listWebhookDeliveries: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The webhook id. */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Up to 100 attempts */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "success";
                        data: components["schemas"]["WebhookDelivery"][];
                    };
                };
            };
            /** @description The id is not a webhook id */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Missing or wrong bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description No admin_token configured */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description No such webhook */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Another method on this path (with `Allow`) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Unexpected failure, logged; no detail in the body */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The index database, or S3 when assets are kept there, does not answer now, or another instance does not give the timestamps back in time (with `Retry-After`) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    root: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description To /console/ */
            308: {
                headers: {
                    Location?: "/console/";
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description console: false (the path is not routed) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Another method on this path (with `Allow`) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Unexpected failure, logged; no detail in the body */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    console: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The console page */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/html": unknown;
                };
            };
            /** @description console: false (the path is not routed) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Another method on this path (with `Allow`) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Unexpected failure, logged; no detail in the body */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The console is not built (run pnpm build) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    favicon: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The icon */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "image/x-icon": unknown;
                };
            };
            /** @description console: false, or the console is not built */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Another method on this path (with `Allow`) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Unexpected failure, logged; no detail in the body */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    apiDocs: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The reference page */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/html": unknown;
                };
            };
            /** @description Another method on this path (with `Allow`) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Unexpected failure, logged; no detail in the body */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
}
