"""Every number an event accepts, with where its bound comes from. Pure Python.

The game's own numbers (points, targets, hands) and the columns' ranges are in
``scoring.bounds``; these are the event's: seeds, rounds, how many go through, placement
points. Serializers, forms, the organizer's page and the database's check constraints
read them from here.
"""

from scoring.bounds import INTEGER_MAX, SMALLINT_MAX

# Table sizes the rule sets know (RULES.md: two to six at a two-box table).
TABLE_SIZE_RANGE = (2, 6)

# A seed an organizer gives. Far above any field an event holds, so a seed can say
# "last" with room to spare.
SEED_RANGE = (1, 100_000)
# What the database holds: seeds handed out after an organizer's (the next free one,
# the parking place of a swap) climb above SEED_RANGE by at most the field's size.
SEED_CEILING = 10 * SEED_RANGE[1]

# How many go through (``top``) and how many per pool are counts of entrants.
ADVANCING_RANGE = (1, SEED_RANGE[1])

# A stage's ``rounds``: Swiss events play 5-15, a table round robin of 32 plays 10;
# forty is the most the organizer's form ever offered.
ROUNDS_RANGE = (1, 40)
# A stage's ``pools``: each pool needs two entrants at least.
POOLS_RANGE = (1, 1_000)
# A stage's random ``seed``: any value the pairing's random source takes, kept to what
# a person types and JSON carries exactly.
PAIRING_SEED_RANGE = (0, INTEGER_MAX)

# A stage's number settings, as the pairing engines check them; ``advance`` (how many
# go through at a bracket table) is further held below the table size.
STAGE_SETTING_RANGES = {
    "rounds": ROUNDS_RANGE,
    "pools": POOLS_RANGE,
    "advance": (1, TABLE_SIZE_RANGE[1]),
    "seed": PAIRING_SEED_RANGE,
}

# Points for a placement at a table (match points: 3 for a win, 1 for second ...).
# Fractions are allowed (half points); a thousand is more than any league gives.
PLACEMENT_POINTS_RANGE = (-1_000, 1_000)

# Stages and rounds are numbered in small-integer columns.
STAGE_ORDER_RANGE = (1, SMALLINT_MAX)
ROUND_NUMBER_RANGE = (1, SMALLINT_MAX)
