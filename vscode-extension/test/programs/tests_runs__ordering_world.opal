# The world file declares `note` sequential (`order = "sequential"`): its calls keep program
# order, though the first takes longest. `tag` is unordered there.
extern note, tag
note 300
note 100
note 200
t := tag 1
print t
