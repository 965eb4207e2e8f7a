package main

// The index stores gno opens besides its SQLite file, chosen by the URL
// scheme of an index's location (`store:` in its config, GNO_STORE_URL),
// as database/sql chooses its drivers: importing one registers it.
import _ "github.com/gnosearch/gno/retrieval/store/postgres" // postgres://
