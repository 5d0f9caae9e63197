-- Run once by the openlink/virtuoso-opensource-7 image when it creates its database
-- (scripts in /opt/virtuoso-opensource/initdb.d). Anonymous SPARQL runs as the SQL user
-- "SPARQL", which may not update without this grant (as in scripts/virtuoso.sh). Demo only:
-- a shared plant store puts the sidecars behind a user with a password instead.
GRANT SPARQL_UPDATE TO "SPARQL";
