"""The pure OpenSkill wrapper: who gains, who loses, partners rated as teams."""

from circuit.rating import MU, SIGMA, RatedGame, Skill, rate, replay


def test_the_winner_of_a_table_of_four_gains_and_the_last_loses():
    after = rate({}, RatedGame(1, ((1,), (2,), (3,), (4,)), (1, 2, 3, 4)))
    assert after[1].mu > MU > after[4].mu
    assert all(skill.sigma < SIGMA and skill.games == 1 for skill in after.values())
    assert after[1].ordinal == after[1].mu - 3 * after[1].sigma


def test_equal_totals_share_a_placing_and_move_alike():
    after = rate({}, RatedGame(1, ((1,), (2,), (3,)), (1, 2, 2)))
    assert after[2] == after[3]


def test_partners_rate_each_player_of_the_winning_team_up():
    after = rate({}, RatedGame(1, ((1, 3), (2, 4)), (1, 2)))
    assert after[1].mu == after[3].mu > MU > after[2].mu == after[4].mu


def test_replay_counts_games_and_starts_from_the_skills_given():
    skills = {1: Skill(30.0, 5.0, 7)}
    games = [RatedGame(n, ((1,), (2,)), (2, 1)) for n in range(3)]
    list(replay(skills, games))
    assert skills[1].games == 10 and skills[2].games == 3
    assert skills[1].mu < 30.0
