# cython: language_level=3
"""The exact endgame's public tree and its DCFR solver in C (see the package
`bergen_search/search/endgame/` for the game, its `reference.py` for the same solver in Python).

A node is a point of the public tree: a sequence of public actions from the root (a node
where every hand has the same single action is skipped). A decision node holds its acting
player's possible hands (its *rows*) and, per row, an *entry* for each action legal for that
hand (its regret and strategy sum), row by row; its *column list* gives the entries of each
action. A terminal holds its deals (pairs of hands) with each one's weight times side 0's
margin and times side 0's gain.
"""
from libc.stdint cimport int8_t, int16_t, int32_t, int64_t, uint8_t, uint32_t
from bergen_search.game._core cimport CoreRules

ctypedef struct Node:
    int64_t first           # decision: its first action (child_node, child_move, child_col);
                            # terminal: its first deal (the pair arrays)
    int64_t rows            # decision: its first row (row_hand, row_ent, row_n)
    int64_t ents            # decision: its first entry (ent_hand, ent_action, regret, strat)
                            # and the first of its column list (col_ent)
    int32_t count           # decision: its public actions; terminal: its deals
    int32_t n_rows          # decision: the acting player's possible hands
    int32_t n_ents          # decision: the (row, legal action) entries
    int8_t player           # the player to act; -1 at a terminal

ctypedef struct Tree:
    int n_hands[2]          # possible hands of each player (hand indices 0..n_hands-1)
    uint32_t* hands[2]      # the hands as dealt at the root (masks), by index
    Node* nodes             # depth-first from the root (node 0)
    int64_t n_nodes
    int64_t cap_nodes
    # a decision's actions
    int32_t* child_node     # the node an action leads to
    int16_t* child_move     # the action: tile * 2 + end, or PASS
    int32_t* child_col      # where its entries start in the node's column list
    int64_t n_child
    int64_t cap_child
    # a decision's rows: the acting player's possible hands, ascending
    int32_t* row_hand       # the row's hand (index among its player's hands)
    int32_t* row_ent        # its first entry, counted from the node's
    uint8_t* row_n          # its legal actions (its entries)
    int64_t n_row
    int64_t cap_row
    # a decision's entries: each row's legal actions, row by row, ascending
    int32_t* ent_hand       # the entry's hand
    uint8_t* ent_action     # its action (index among the node's)
    int32_t* col_ent        # the column list: entries (counted from the node's) by action
    double* regret          # accumulated (discounted) regret
    double* strat           # weighted strategy sum (the average strategy, unnormalised)
    int64_t n_ent
    int64_t cap_ent
    # a terminal's deals
    int32_t* pair_h0        # player 0's hand
    int32_t* pair_h1        # player 1's hand
    double* pair_wx         # the deal's chance weight times side 0's margin there
    double* pair_wg         # its weight times side 0's points gained from the root there
    int64_t n_pair
    int64_t cap_pair
    int max_depth           # the deepest decision's depth (the root is 0)
    int64_t max_scratch     # doubles of scratch the deepest path needs (2 per entry)
