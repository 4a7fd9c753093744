"""Standard interfaces for learning tools: fixed action ids and tensors (:mod:`.spaces`, numpy), a
PettingZoo AEC environment (:mod:`.pettingzoo_env`, extra ``pettingzoo``) and an OpenSpiel game
(:mod:`.openspiel_game`, extra ``openspiel``), for any spec. See docs/research.md."""
