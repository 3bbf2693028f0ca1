-- The sample's own tables, applied by the application's Flyway (history table flyway_schema_history).
-- bizlock's tables are applied separately by the starter, with its own history table.
-- There are deliberately no unique constraints on request_id or (job, slot): the locks keep them unique,
-- and the demo counts duplicates to show it.

CREATE TABLE orders (
    id          BIGINT      NOT NULL AUTO_INCREMENT,
    request_id  VARCHAR(64) NOT NULL,
    sku         VARCHAR(32) NOT NULL,
    quantity    INT         NOT NULL,
    created_by  VARCHAR(64) NOT NULL,
    created_at  DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
    PRIMARY KEY (id),
    KEY orders_request_id (request_id)
);

CREATE TABLE inventory (
    sku           VARCHAR(32) NOT NULL,
    stock         INT         NOT NULL,
    initial_stock INT         NOT NULL,
    fence         BIGINT      NOT NULL DEFAULT 0 COMMENT 'fencing token of the last guarded write',
    PRIMARY KEY (sku)
);

CREATE TABLE reservations (
    id         BIGINT      NOT NULL AUTO_INCREMENT,
    sku        VARCHAR(32) NOT NULL,
    quantity   INT         NOT NULL,
    created_at DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
    PRIMARY KEY (id),
    KEY reservations_sku (sku)
);

CREATE TABLE products (
    id    BIGINT        NOT NULL,
    name  VARCHAR(100)  NOT NULL,
    price DECIMAL(10,2) NOT NULL,
    loads INT           NOT NULL DEFAULT 0 COMMENT 'how often a cache miss loaded it from here',
    PRIMARY KEY (id)
);

CREATE TABLE reference_data (
    code  VARCHAR(32)  NOT NULL,
    label VARCHAR(100) NOT NULL,
    PRIMARY KEY (code)
);

CREATE TABLE seed_runs (
    id        BIGINT      NOT NULL AUTO_INCREMENT,
    instance  VARCHAR(64) NOT NULL,
    seeded_at DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
    PRIMARY KEY (id)
);

CREATE TABLE job_runs (
    id       BIGINT      NOT NULL AUTO_INCREMENT,
    job      VARCHAR(64) NOT NULL,
    slot     BIGINT      NOT NULL COMMENT 'which tick: database seconds divided by the period',
    instance VARCHAR(64) NOT NULL,
    ran_at   DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
    PRIMARY KEY (id),
    KEY job_runs_slot (job, slot)
);

INSERT INTO products (id, name, price) VALUES (1, 'Phone', 699.00), (2, 'Charger', 19.90), (3, 'Case', 9.90);
