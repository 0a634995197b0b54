-- An archive made by tallyboard at commit f7cfb9c (archive version 3, before the register): the
-- evening 'Tuesday 1' of tests/event_evenings.py (TWO_*), finished, round 1 table 1 hand 4 corrected
-- after the fact to 7 tricks, and a game in the archive; written by sqlite3's .dump, then its version.
PRAGMA foreign_keys=OFF;
BEGIN TRANSACTION;
CREATE TABLE games (
        id          INTEGER PRIMARY KEY,
        digest      TEXT NOT NULL UNIQUE,
        game        TEXT NOT NULL,
        players     TEXT NOT NULL,
        complete    INTEGER NOT NULL,
        totals      TEXT NOT NULL,
        winners     TEXT NOT NULL,
        result      TEXT NOT NULL,
        source      TEXT NOT NULL,
        archived_at TEXT NOT NULL,
        record      TEXT NOT NULL
    );
INSERT INTO games VALUES(1,'f4ad7cccfc86f92843f0d245f6dd83587fa9375e2d9adb78b83fb67998aa7d67','roquet','["Ann", "Bob"]',1,'[101, 68]','[0]','Ann wins with 101.','demo_roquet.json','2026-11-27T15:19:00+00:00','{"format":"tallyboard/1","game":"roquet","hands":[[[0,1],[1,2],[0,5],[0,1],[1,1],[0,2],[1,5],[0,9],[1,2],[0,7]],[[1,1],[1,2],[0,1],[1,5],[1,2],[0,2],[1,9],[1,10],[0,1],[1,5]],[[0,2],[0,5],[1,1],[0,9],[0,10],[1,2],[0,5]],[[1,2],[0,1],[1,5],[1,9]],[[0,2],[1,1],[0,9],[0,5],[1,2],[0,10],[1,2],[0,9],[0,5]]],"players":["Ann","Bob"]}');
CREATE TABLE event_events (
        id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, state TEXT NOT NULL, round INTEGER NOT NULL,
        rounds INTEGER NOT NULL, hands INTEGER, created_at TEXT NOT NULL, updated_at TEXT NOT NULL);
INSERT INTO event_events VALUES(1,'Tuesday 1','finished',2,2,NULL,'2026-11-27T15:19:00+00:00','2026-11-27T15:19:00+00:00');
CREATE TABLE event_players (
        event INTEGER NOT NULL, number INTEGER NOT NULL, name TEXT NOT NULL, withdrawn INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (event, number));
INSERT INTO event_players VALUES(1,0,'Ann',0);
INSERT INTO event_players VALUES(1,1,'Bob',0);
INSERT INTO event_players VALUES(1,2,'Cy',0);
INSERT INTO event_players VALUES(1,3,'Dee',0);
INSERT INTO event_players VALUES(1,4,'Eve',0);
INSERT INTO event_players VALUES(1,5,'Fay',0);
INSERT INTO event_players VALUES(1,6,'Gus',0);
INSERT INTO event_players VALUES(1,7,'Hal',0);
CREATE TABLE event_rounds (
        event INTEGER NOT NULL, round INTEGER NOT NULL, seating TEXT NOT NULL, how TEXT NOT NULL,
        ended_early TEXT NOT NULL DEFAULT '[]', PRIMARY KEY (event, round));
INSERT INTO event_rounds VALUES(1,1,'[[0, 1, 2, 3], [4, 5, 6, 7]]','first','[]');
INSERT INTO event_rounds VALUES(1,2,'[[0, 1, 4, 3], [2, 5, 6, 7]]','movement','[]');
CREATE TABLE event_games (
        event INTEGER NOT NULL, round INTEGER NOT NULL, tableno INTEGER NOT NULL, record TEXT NOT NULL,
        stamp TEXT NOT NULL, saved_at TEXT NOT NULL, PRIMARY KEY (event, round, tableno));
INSERT INTO event_games VALUES(1,1,1,'{"format":"tallyboard/1","game":"skicket","hands":[{"bid":"1C","purchaser":0,"tricks":7},{"bid":"1C","purchaser":1,"tricks":7},{"bid":"2C","purchaser":0,"tricks":8},{"bid":"1C","purchaser":2,"tricks":6},{"bid":"1C","purchaser":3,"tricks":7},{"bid":"1C","purchaser":1,"tricks":7}],"players":["Ann","Bob","Cy","Dee"]}','{"board_id":"B","n":0}','2026-11-27T15:19:00+00:00');
INSERT INTO event_games VALUES(1,1,2,'{"format":"tallyboard/1","game":"skicket","hands":[{"misdeal":true},{"bid":"1C","purchaser":0,"tricks":7},{"bid":"1C","purchaser":1,"tricks":7},{"bid":"2C","purchaser":0,"tricks":8},{"bid":"1C","purchaser":2,"tricks":6},{"bid":"1C","purchaser":3,"tricks":7},{"bid":"1C","purchaser":1,"tricks":7}],"players":["Eve","Fay","Gus","Hal"]}','{"board_id":"B","n":0}','2026-11-27T15:19:00+00:00');
INSERT INTO event_games VALUES(1,2,1,'{"format":"tallyboard/1","game":"skicket","hands":[{"bid":"1C","purchaser":1,"tricks":7},{"bid":"1C","purchaser":0,"tricks":7},{"bid":"1C","purchaser":0,"tricks":7},{"bid":"1C","purchaser":2,"tricks":7},{"bid":"1C","purchaser":0,"tricks":7},{"bid":"1C","purchaser":0,"tricks":7}],"players":["Ann","Bob","Eve","Dee"]}','{"board_id":"B","n":0}','2026-11-27T15:19:00+00:00');
INSERT INTO event_games VALUES(1,2,2,'{"format":"tallyboard/1","game":"skicket","hands":[{"bid":"1C","purchaser":0,"tricks":7},{"bid":"1C","purchaser":1,"tricks":7},{"bid":"1C","purchaser":2,"tricks":7},{"bid":"1C","purchaser":0,"tricks":7},{"bid":"1C","purchaser":0,"tricks":7},{"bid":"1C","purchaser":0,"tricks":7}],"players":["Cy","Fay","Gus","Hal"]}','{"board_id":"B","n":0}','2026-11-27T15:19:00+00:00');
CREATE TABLE event_corrections (
        event INTEGER NOT NULL, round INTEGER NOT NULL, tableno INTEGER NOT NULL, hands TEXT NOT NULL,
        whole TEXT, PRIMARY KEY (event, round, tableno));
INSERT INTO event_corrections VALUES(1,1,1,'{"4":{"bid":"1C","purchaser":2,"tricks":7}}',NULL);
CREATE TABLE event_pending (
        event INTEGER NOT NULL, round INTEGER NOT NULL, tableno INTEGER NOT NULL, pending TEXT NOT NULL,
        PRIMARY KEY (event, round, tableno));
CREATE TABLE event_boards (
        event INTEGER NOT NULL, tableno INTEGER NOT NULL, port TEXT NOT NULL, board_id TEXT NOT NULL,
        status TEXT NOT NULL, PRIMARY KEY (event, tableno));
CREATE TABLE event_log (
        id INTEGER PRIMARY KEY, event INTEGER NOT NULL, at TEXT NOT NULL, action TEXT NOT NULL,
        what TEXT NOT NULL, before TEXT NOT NULL, after TEXT NOT NULL);
INSERT INTO event_log VALUES(1,1,'2026-11-27T15:19:00+00:00','correct','round 1 table 1 hand 4: kept over the board''s record (a later sync from the board keeps it)','{"bid": "1C", "purchaser": 2, "tricks": 6}','{"bid": "1C", "purchaser": 2, "tricks": 7}');
CREATE TABLE event_director (
        id INTEGER PRIMARY KEY CHECK (id = 1), pin TEXT NOT NULL, set_at TEXT NOT NULL);
INSERT INTO event_director VALUES(1,'scrypt$16384$8$1$91bd469ecc17e85fea9037c5ed50cc31$99ad80bfd6ab91e7990045780c28746cf45ee9f0d09e74c43af3e23ed4b4955346e21e10c8797ebdabcd980ae35a56259f0d47fc302c96a04075ce197f37585d','2026-11-27T15:19:00+00:00');
CREATE TABLE event_wrong_pins (
        id INTEGER PRIMARY KEY CHECK (id = 1), failures INTEGER NOT NULL, last_at REAL NOT NULL,
        locked_until REAL NOT NULL);
CREATE INDEX games_by_game ON games (game);
COMMIT;
PRAGMA user_version = 3;
