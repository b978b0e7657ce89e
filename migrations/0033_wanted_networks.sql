-- 0033_wanted_networks.sql: /wanted counts the networks that asked, and
-- its trimming keeps the rows the most networks asked for (issue 37, M1).
--
-- An ask is counted at most once a day per visitor (an IPv4 address, an
-- IPv6 /64), each network (IPv4 /24, IPv6 /48) counts at most as many
-- visitors per row as it may count keys, and a network's asks a day are
-- bounded (store/wanted.c).  networks adds, per day, the networks whose
-- asks counted for the row; when the table is full, the rows with the
-- fewest networks, then asks, then the oldest, leave first.  Rows from
-- before were asked by at least one network.

ALTER TABLE wanted ADD COLUMN networks INTEGER NOT NULL DEFAULT 0;
UPDATE wanted SET networks = 1;
